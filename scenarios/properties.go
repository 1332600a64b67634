package scenarios

import "slices"

// PropertiesToCheck returns the properties a run of s is judged by, in Properties order: the
// scenario's own list if it gives one, else the default set for its mode and sink; the
// property a negative control expects to fail is always among them.
func PropertiesToCheck(s *Scenario) []string {
	chosen := s.Check
	if len(chosen) == 0 {
		chosen = defaultProperties(s)
	}
	var out []string
	for _, p := range Properties {
		if slices.Contains(chosen, p) || p == s.Expect.Property || p == PropertyWellFormed {
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
func defaultProperties(s *Scenario) []string {
	props := []string{PropertyRestoreFidelity, PropertyLiveness, PropertyCheckpointOutcome}
	if s.Mode != ModeAtLeastOnce {
		props = append(props, PropertyConsistentCut)
	}
	if s.Mode == ModeChandyLamport {
		return props
	}
	props = append(props, PropertyListenerContract, PropertyDurableBeforeVisible)
	if s.Sink == nil {
		return props
	}
	props = append(props, PropertyAtLeastOnce)
	exactMode := s.Mode != ModeAtLeastOnce
	exactSink := s.Sink.Kind == SinkTwoPhaseCommit || s.Sink.Kind == SinkIdempotent
	if exactMode && exactSink {
		props = append(props, PropertyExactlyOnce)
	}
	if s.Sink.Kind == SinkTwoPhaseCommit {
		props = append(props, PropertySinkVisibility)
	}
	return props
}
