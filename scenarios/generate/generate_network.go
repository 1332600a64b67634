package generate

import (
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
)

// network draws, half the time, a network section for a generated scenario: a latency model
// of a few milliseconds at most for every link between hosts and, a third of those times,
// one channel with a model of its own. Delays this short keep every liveness bound the
// generator draws within reach.
func (g *generator) network(s *scenarios.Scenario) {
	if g.r.IntN(2) == 0 {
		return
	}
	n := &scenarios.Network{}
	model := g.latency()
	n.Latency = &model
	if channels := s.System().Channels; len(channels) > 0 && g.r.IntN(3) == 0 {
		c := pick(g, channels)
		n.Links = append(n.Links, scenarios.LinkLatency{From: c.From, To: c.To, Latency: g.latency()})
	}
	s.Network = n
}

// latency draws a model whose delays are at most 3ms.
func (g *generator) latency() scenarios.Latency {
	us := func(lo, hi int64) scenarios.Duration {
		return scenarios.Duration(g.between(lo, hi) * int64(time.Microsecond))
	}
	switch pick(g, scenarios.LatencyKinds) {
	case scenarios.LatencyFixed:
		return scenarios.Latency{Kind: scenarios.LatencyFixed, Value: us(0, 3000)}
	case scenarios.LatencyUniform:
		lo := us(0, 1500)
		return scenarios.Latency{Kind: scenarios.LatencyUniform, Min: lo, Max: lo + us(1, 1500)}
	}
	mean := us(50, 1000)
	return scenarios.Latency{Kind: scenarios.LatencyExponential, Mean: mean, Cap: mean + us(0, 3000-mean.Nanos()/1000)}
}
