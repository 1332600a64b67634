package explore

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// observe feeds events to a fresh observer and returns the run's features.
func observe(events []trace.Event, plan *scenarios.Plan, res *scenarios.Result) []string {
	o := NewObserver()
	for i := range events {
		o.Watch(&events[i])
	}
	return o.Features(plan, res)
}

func testPlan(properties ...checker.Property) *scenarios.Plan {
	return &scenarios.Plan{Scenario: &scenarios.Scenario{Mode: scenarios.ModeAligned}, Properties: properties}
}

// TestObserverNamesOutcomes checks the protocol outcomes a run reaches: savepoint restores,
// checkpoint ids past 9, checkpoints in flight, recoveries, faults and reasons.
func TestObserverNamesOutcomes(t *testing.T) {
	savepoint := []trace.Attr{{Key: trace.AttrSavepoint, Value: "true"}}
	events := []trace.Event{
		{Kind: trace.KindFault, Fault: "crash.task"},
		{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 9, Attrs: savepoint},
		{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 10},
		{Kind: trace.KindCheckpointComplete, Task: "coordinator", CP: 9},
		{Kind: trace.KindCheckpointAbort, Task: "coordinator", CP: 10, Reason: "expired"},
		{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 11},
		{Kind: trace.KindCheckpointComplete, Task: "coordinator", CP: 11},
		{Kind: trace.KindTaskRestore, Task: "map-0", CP: 9},
		{Kind: trace.KindCoordinatorRecover, Task: "coordinator", CP: 11},
	}
	got := observe(events, testPlan(), &scenarios.Result{Verdict: scenarios.VerdictPass})
	for _, want := range []string{"fault:crash.task", "savepoint:complete", "restore:savepoint", "cp:10+", "inflight:2",
		"reason:checkpoint.abort/expired", "coordinator:recover/checkpoint", "count:checkpoint.abort=1",
		"count:checkpoint.complete=2", "pair:checkpoint.trigger>checkpoint.trigger", "pair:>" + trace.KindTaskRestore,
		"vocab:Config.MaxConcurrent", "vocab:Mode.aligned", "verdict:pass"} {
		if !slices.Contains(got, want) {
			t.Errorf("features lack %s: %v", want, got)
		}
	}
	for _, absent := range []string{"cp:100+", "restore:checkpoint", "restore:fresh"} {
		if slices.Contains(got, absent) {
			t.Errorf("features have %s, which the run did not reach", absent)
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("features not sorted: %v", got)
	}
}

// TestObserverNamesRules: a rule whose property the run exercised is a feature, and so is
// the rule with each word of its vocabulary the run showed; an unexercised property's rules
// are not.
func TestObserverNamesRules(t *testing.T) {
	var rule checker.Rule
	for _, r := range checker.Rules() {
		if slices.Contains(r.Covers, "Reason.expired") {
			rule = r
			break
		}
	}
	if rule.ID == "" {
		t.Fatal("no rule covers Reason.expired")
	}
	events := []trace.Event{{Kind: trace.KindCheckpointAbort, Task: "coordinator", CP: 1, Reason: "expired"}}
	got := observe(events, testPlan(rule.Property), &scenarios.Result{Verdict: scenarios.VerdictPass})
	for _, want := range []string{"rule:" + rule.ID, "rule:" + rule.ID + "/Reason.expired"} {
		if !slices.Contains(got, want) {
			t.Errorf("features lack %s: %v", want, got)
		}
	}
	res := &scenarios.Result{Verdict: scenarios.VerdictPass, Unexercised: []string{string(rule.Property) + " (no occasion)"}}
	got = observe(events, testPlan(rule.Property), res)
	if slices.Contains(got, "rule:"+rule.ID) {
		t.Errorf("rule %s is a feature although its property was unexercised", rule.ID)
	}
}

func TestBucket(t *testing.T) {
	for n, want := range map[int]string{1: "1", 3: "3", 4: "4+", 7: "4+", 8: "8+", 200: "128+"} {
		if got := bucket(n); got != want {
			t.Errorf("bucket(%d) = %s, want %s", n, got, want)
		}
	}
}
