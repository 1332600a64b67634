package checker

import (
	"slices"
	"strings"
	"testing"
)

func TestDefaultPropertiesFollowTheReference(t *testing.T) {
	got := DefaultProperties(Reference{Guarantee: GuaranteeAtLeastOnce, TraceHash: "ab"})
	want := []Property{PropWellFormed, PropContract, PropAtLeastOnce, PropConsistentCut, PropRestoreFidelity,
		PropListenerContract, PropCheckpointOutcome, PropNoTriggerInFailover, PropNoPendingAcrossFailover, PropNoTriggerAfterFinish,
		PropBarrierHandling, PropDurableVisible, PropSinkVisibility, PropLiveness, PropDeterminism}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Promising nothing in particular, a reference is judged by every property: both output
	// properties tell a loss from a duplicate, and determinism is unknown without a hash.
	// The properties that judge a policy setting need it given; failure-cause and
	// failover-cause, whose evidence (which failures a task reports of itself) is the
	// engine's own, need a promise.
	withPolicy := Reference{
		Policy: Policy{TolerableFailures: Tolerating(0), RetainedCheckpoints: 1, AlignmentTimeoutNanos: 1, IntervalNanos: Nanos(0),
			MinPauseNanos: Nanos(0), TimeoutNanos: 1, MaxConcurrent: 1, Mode: "aligned"},
		Liveness:  LivenessBounds{RecoveryMaxNanos: 1, SwitchMaxNanos: 1, AbortReachMaxNanos: 1, ReactionMaxNanos: 1},
		Snapshots: []ExpectedSnapshot{{CP: 1}},
	}
	everyButCause := slices.DeleteFunc(slices.Clone(AllProperties), func(p Property) bool { return p == PropFailureCause || p == PropFailoverCause })
	if got := DefaultProperties(withPolicy); !slices.Equal(got, everyButCause) {
		t.Fatalf("without promises or a guarantee: got %v, want every property but failure-cause and failover-cause", got)
	}
	for _, p := range []Property{PropFailureCause, PropFailoverCause} {
		if got := DefaultProperties(Reference{Promises: []Property{p}}); !slices.Contains(got, p) {
			t.Fatalf("%s promised: got %v", p, got)
		}
	}
	if got := DefaultProperties(Reference{}); slices.Contains(got, PropStateRelease) {
		t.Fatalf("without a retained-checkpoint count: got %v, want state-release left out", got)
	}
	if got := DefaultProperties(Reference{}); slices.Contains(got, PropExpectedSnapshot) {
		t.Fatalf("without expected snapshots: got %v, want expected-snapshot left out", got)
	}
	if got := DefaultProperties(Reference{}); slices.Contains(got, PropFailureAccounting) {
		t.Fatalf("without a tolerable-failure limit: got %v, want failure-accounting left out", got)
	}
	partial := withPolicy
	partial.Policy.Mode, partial.Liveness.ReactionMaxNanos = "", 0
	if got := DefaultProperties(partial); slices.Contains(got, PropTriggerPacing) || slices.Contains(got, PropCheckpointTiming) {
		t.Fatalf("without the mode and the reaction bound: got %v, want trigger-pacing and checkpoint-timing left out", got)
	}
	promised := DefaultProperties(Reference{Promises: []Property{PropConsistentCut, PropDeterminism}})
	if !slices.Equal(promised, []Property{PropWellFormed, PropContract, PropConsistentCut}) {
		t.Fatalf("with promises and no hash: got %v", promised)
	}
}

// TestDefaultPropertiesFollowThePromises: a reference that lists its promises gets those, in
// AllProperties order, with well-formed and contract always and determinism only with a
// trace hash; an empty list promises nothing but those two, unlike a nil one.
func TestDefaultPropertiesFollowThePromises(t *testing.T) {
	promises := []Property{PropLiveness, PropConsistentCut, PropDeterminism}
	got := DefaultProperties(Reference{Guarantee: GuaranteeExactlyOnce, Promises: promises})
	if want := []Property{PropWellFormed, PropContract, PropConsistentCut, PropLiveness}; !slices.Equal(got, want) {
		t.Errorf("without a hash: got %v, want %v", got, want)
	}
	got = DefaultProperties(Reference{Promises: promises, TraceHash: "ab"})
	if want := []Property{PropWellFormed, PropContract, PropConsistentCut, PropLiveness, PropDeterminism}; !slices.Equal(got, want) {
		t.Errorf("with a hash: got %v, want %v", got, want)
	}
	if got := DefaultProperties(Reference{Promises: []Property{}}); !slices.Equal(got, []Property{PropWellFormed, PropContract}) {
		t.Errorf("empty promises: got %v", got)
	}
}

func TestCheckRunsSelectedPropertiesInOrder(t *testing.T) {
	report := Check(notifiedRun().events, Reference{}, Options{
		Properties: []Property{PropListenerContract, PropWellFormed, "exactly-twice"},
	})
	var names []Property
	for _, r := range report.Results {
		names = append(names, r.Property)
	}
	if !slices.Equal(names, []Property{PropWellFormed, PropListenerContract, "exactly-twice"}) {
		t.Fatalf("got %v", names)
	}
	if report.Verdict() != VerdictUnknown {
		t.Fatalf("a misspelt property must not pass:\n%s", report)
	}
	if _, err := ParseProperty("exactly-twice"); err == nil || !strings.HasPrefix(err.Error(), "checker: ") {
		t.Fatalf("ParseProperty: %v", err)
	}
	if p, err := ParseProperty("liveness"); err != nil || p != PropLiveness {
		t.Fatalf("ParseProperty(liveness) = %v, %v", p, err)
	}
}

// A trace with nothing in it to judge passes nothing: every property that lacks its
// evidence is unknown and names what it lacked (well-formed alone holds, since the one event
// is well formed).
func TestCheckPassesNothingWithoutEvidence(t *testing.T) {
	b := newTB()
	b.phase("liveness")
	report := Check(b.events, Reference{}, Options{})
	for _, res := range report.Results {
		switch {
		case res.Property == PropWellFormed:
			if res.Verdict != VerdictPass {
				t.Errorf("well-formed: %s", res)
			}
		case res.Verdict != VerdictUnknown && res.Verdict != VerdictUnexercised || res.Note == "":
			t.Errorf("want unknown or unexercised with the missing evidence named, got %s", res)
		}
	}
	if report.Verdict() != VerdictUnknown {
		t.Fatalf("report verdict %s, want unknown", report.Verdict())
	}
}

func TestCheckCapsViolationsPerProperty(t *testing.T) {
	b := newTB()
	for range 5 {
		b.notify("sink", 1) // five notifications for a checkpoint that never completed
	}
	report := Check(b.events, Reference{}, Options{Properties: []Property{PropListenerContract}, MaxViolations: 2})
	res, ok := report.Result(PropListenerContract)
	if !ok || len(res.Violations) != 2 || res.Omitted != 3 {
		t.Fatalf("want 2 kept and 3 omitted, got:\n%s", res)
	}
	if !strings.HasSuffix(res.String(), "... and 3 more") {
		t.Fatalf("the omitted count should show:\n%s", res)
	}
	if len(report.Violations()) != 2 {
		t.Fatalf("report should list the kept violations")
	}
}

// Well-formed and determinism only say the trace reads and is the one recorded: their passes
// beside properties that had no occasion judge nothing about the run.
func TestReportWithOnlyWellFormedPassingIsUnknown(t *testing.T) {
	b := newTB()
	b.phase("end")
	report := Check(b.events, Reference{}, Options{Properties: []Property{PropWellFormed, PropRestoreFidelity}})
	if report.Verdict() != VerdictUnknown {
		t.Fatalf("verdict %s, want unknown:\n%s", report.Verdict(), report)
	}
}
