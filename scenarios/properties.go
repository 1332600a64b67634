package scenarios

import (
	"slices"

	"github.com/ckptsim/ckptsim/checker"
)

// PropertiesToCheck returns the properties a run of s is judged by, in Properties order: the
// scenario's own list if it gives one, else the default set for its mode and sink; the
// property a negative control expects to fail is always among them.
func PropertiesToCheck(s *Scenario) []checker.Property {
	chosen := s.Check
	if len(chosen) == 0 {
		chosen = defaultProperties(s)
	}
	var out []checker.Property
	for _, p := range Properties {
		if slices.Contains(chosen, p) || p == s.Expect.Property || p == checker.PropWellFormed {
			out = append(out, p)
		}
	}
	return out
}

// defaultProperties is what a mode and sink promise. Every mode promises faithful restores,
// progress after heal, and that every checkpoint asked for completes or aborts (no false
// alarm in the catalogue: a barrier job's coordinator aborts what it gives up on, a crash
// drops what it had pending, and what a cut-off run leaves pending is not judged); every
// mode but at-least-once promises consistent snapshots (an at-least-once barrier never
// blocks, so a snapshot may reflect records sent after the sender's: that is where its
// duplicates come from). The checkpoint modes also promise the
// listener contract and durable completion before visibility. Output is never lost by any
// sink; it is exact only when the mode aligns (or stores channel state) and the sink commits
// transactionally or idempotently; transactional sinks also promise that readers see only
// committed, growing output.
func defaultProperties(s *Scenario) []checker.Property {
	props := []checker.Property{checker.PropRestoreFidelity, checker.PropLiveness, checker.PropCheckpointOutcome}
	if s.Mode != ModeAtLeastOnce {
		props = append(props, checker.PropConsistentCut)
	}
	if s.Mode == ModeChandyLamport {
		return props
	}
	props = append(props, checker.PropListenerContract, checker.PropDurableVisible)
	if s.Sink == nil {
		return props
	}
	props = append(props, checker.PropAtLeastOnce)
	exactMode := s.Mode != ModeAtLeastOnce
	exactSink := s.Sink.Kind == SinkTwoPhaseCommit || s.Sink.Kind == SinkIdempotent
	if exactMode && exactSink {
		props = append(props, checker.PropExactlyOnce)
	}
	if s.Sink.Kind == SinkTwoPhaseCommit {
		props = append(props, checker.PropSinkVisibility)
	}
	return props
}
