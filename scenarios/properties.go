package scenarios

import (
	"slices"

	"github.com/ckptsim/ckptsim/checker"
)

// PropertiesToCheck returns the properties a run of s is judged by, in checker.AllProperties
// order. The choice is checker's (checker.DefaultProperties) from the facts this package
// supplies, what the scenario's job promises (Promises); a run has no trace hash to meet, so
// determinism is never among them.
func PropertiesToCheck(s *Scenario) []checker.Property {
	return checker.DefaultProperties(checker.Reference{Promises: Promises(s)})
}

// Promises returns what a run of s promises, for checker.Reference.Promises: the scenario's
// own check list if it gives one, else what its mode and sink promise; the property a
// negative control expects to fail is always among them, and so is expected-snapshot when
// the scenario expects global snapshots.
func Promises(s *Scenario) []checker.Property {
	promises := slices.Clone(s.Check)
	if len(promises) == 0 {
		promises = defaultPromises(s)
	}
	if p := s.Expect.Property; p != "" && !slices.Contains(promises, p) {
		promises = append(promises, p)
	}
	if len(s.Expect.Snapshots) > 0 && !slices.Contains(promises, checker.PropExpectedSnapshot) {
		promises = append(promises, checker.PropExpectedSnapshot)
	}
	return promises
}

// defaultPromises is what a mode and sink promise. Every mode promises faithful restores,
// progress after heal, that a task fails by itself only for a cause (an external-system
// fault, a restart, or a storage fault while it restores), that the job fails over only
// for a cause and never because an upload failed, and that every checkpoint asked for
// completes or aborts (no false
// alarm in the catalogue: a barrier job's coordinator aborts what it gives up on, a crash
// drops what it had pending, and what a cut-off run leaves pending is not judged); every
// mode but at-least-once promises consistent snapshots (an at-least-once barrier never
// blocks, so a snapshot may reflect records sent after the sender's: that is where its
// duplicates come from). The checkpoint modes also promise the listener contract and
// durable completion before visibility, that uploaded state is released exactly when no
// retained checkpoint or savepoint holds it (the token engine keeps every snapshot), that
// the job fails over exactly when its
// checkpoint failures exceed the tolerable limit, and that checkpoints are triggered only
// while the job runs: none during a failover, none pending across one, none after the end;
// that triggers keep the policy's pause, interval and concurrency, and that a checkpoint
// ends at its timeout, or at once when a task declines it;
// that a failover recovers, and an abort reaches its tasks, within bounds while no fault
// holds them up; that tasks answer triggers and pass cancel markers on as the
// specification's task rules say; and, aligning with a timeout, that a task switches to unaligned in time. Output is never lost by any sink; it is exact only
// when the mode aligns (or stores channel state) and the sink commits transactionally or
// idempotently; transactional sinks also promise that readers see only committed, growing
// output.
func defaultPromises(s *Scenario) []checker.Property {
	props := []checker.Property{checker.PropRestoreFidelity, checker.PropLiveness, checker.PropCheckpointOutcome, checker.PropFailureCause,
		checker.PropFailoverCause}
	if s.Mode != ModeAtLeastOnce {
		props = append(props, checker.PropConsistentCut)
	}
	if s.Mode == ModeChandyLamport {
		return props
	}
	props = append(props, checker.PropListenerContract, checker.PropDurableVisible, checker.PropStateRelease, checker.PropFailureAccounting,
		checker.PropNoTriggerInFailover, checker.PropNoPendingAcrossFailover, checker.PropNoTriggerAfterFinish,
		checker.PropTriggerPacing, checker.PropCheckpointTiming, checker.PropRecoveryBound, checker.PropAbortReach, checker.PropBarrierHandling)
	if !s.Checkpoint.IsPeriodic() {
		// Without periodic checkpoints no checkpoint is owed after a failover.
		props = slices.DeleteFunc(props, func(p checker.Property) bool { return p == checker.PropRecoveryBound })
	}
	if s.Mode == ModeAlignedWithTimeout {
		props = append(props, checker.PropAlignmentTimeout)
	}
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
