package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// congestion draws a congested stretch of the data channels: two to six clogs and delays,
// on the inputs of one task (a stuck task) or on channels anywhere, each from half to twice
// a checkpoint's timeout long. One fault on one link at a time seldom holds a channel that
// long; a burst does, as backpressure does in production. Checkpoints then time out while
// barriers, cancel markers and data queue together on the held channels, and are released
// in a rush: barriers that wait behind other events instead of overtaking them, alignments
// that end on a cancel marker, channel state recorded across a clog.
func (g *generator) congestion(s *scenarios.Scenario, sys faults.System) []faults.Entry {
	channels := sys.Channels
	if g.r.IntN(2) == 0 {
		into := pick(g, channels).To
		channels = nil
		for _, c := range sys.Channels {
			if c.To == into {
				channels = append(channels, c)
			}
		}
	}
	phase := s.Limits.FaultPhase.Nanos()
	timeout := s.Checkpoint.Timeout.Nanos()
	var out []faults.Entry
	for range g.between(2, 6) {
		c := pick(g, channels)
		at := g.between(0, phase-1)
		f := faults.Fault{Kind: faults.NetClog, From: c.From, To: c.To,
			Window: faults.Duration(min(phase-at, g.between(max(1, timeout/2), 2*timeout)))}
		if g.r.IntN(3) == 0 {
			f.Kind, f.Delay = faults.NetDelay, max(1, f.Window/4)
		}
		out = append(out, faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: f})
	}
	return out
}
