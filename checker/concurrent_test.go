package checker

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestJudgeConcurrentlyKeepsOrderAndRaisesTheFirstPanic checks that results come in the
// order of the properties, and that a panic reaches the caller as a sequential run would
// raise it: the first in property order.
func TestJudgeConcurrentlyKeepsOrderAndRaisesTheFirstPanic(t *testing.T) {
	props := []Property{PropWellFormed, PropExactlyOnce, PropConsistentCut, PropLiveness}
	results := judgeConcurrently(props, func(p Property) Result { return Result{Property: p} }, schedule{})
	var got []Property
	for _, r := range results {
		got = append(got, r.Property)
	}
	if !slices.Equal(got, props) {
		t.Fatalf("results for %v, want %v", got, props)
	}
	if results := judgeConcurrently(nil, nil, schedule{}); results != nil {
		t.Fatalf("no properties gave %v, want nil", results)
	}
	defer func() {
		pp, ok := recover().(*PropertyPanic)
		if !ok || pp.Property != PropConsistentCut || pp.Value != PropConsistentCut {
			t.Fatalf("recovered %v, want the panic of %s", pp, PropConsistentCut)
		}
		if !strings.Contains(string(pp.Stack), "TestJudgeConcurrentlyKeepsOrderAndRaisesTheFirstPanic.func") {
			t.Fatalf("the panic's stack does not show the property's goroutine:\n%s", pp.Stack)
		}
	}()
	judgeConcurrently(props, func(p Property) Result {
		if p == PropConsistentCut || p == PropLiveness {
			panic(p)
		}
		return Result{Property: p}
	}, schedule{})
	t.Fatal("judgeConcurrently returned despite panics")
}

// Judged in turn, the properties give the same results in the same order, and a panic goes
// up as it was raised, the first in property order.
func TestJudgeInTurnMatchesConcurrently(t *testing.T) {
	props := []Property{PropWellFormed, PropExactlyOnce, PropConsistentCut, PropLiveness}
	judge := func(p Property) Result { return Result{Property: p, Note: "judged " + string(p)} }
	if inTurn, concurrently := judgeInTurn(props, judge), judgeConcurrently(props, judge, schedule{}); !slices.EqualFunc(inTurn, concurrently,
		func(a, b Result) bool { return a.Property == b.Property && a.Note == b.Note }) {
		t.Fatalf("in turn %v, concurrently %v", inTurn, concurrently)
	}
	if results := judgeInTurn(nil, nil); results != nil {
		t.Fatalf("no properties gave %v, want nil", results)
	}
	defer func() {
		if r := recover(); r != PropExactlyOnce {
			t.Fatalf("recovered %v, want the panic of %s as it was raised", r, PropExactlyOnce)
		}
	}()
	judgeInTurn(props, func(p Property) Result {
		if p == PropExactlyOnce || p == PropLiveness {
			panic(p)
		}
		return Result{Property: p}
	})
	t.Fatal("judgeInTurn returned despite panics")
}

// With a schedule, prepare is taken first and the late properties last (on one goroutine,
// then, every late property comes after prepare), results keep props order, and a panic of
// prepare reaches the caller as the first late property's, with prepare's stack.
func TestJudgeConcurrentlyRunsPrepareBeforeLateProperties(t *testing.T) {
	props := []Property{PropWellFormed, PropExactlyOnce, PropConsistentCut, PropLiveness}
	late := func(p Property) bool { return p == PropExactlyOnce || p == PropLiveness }
	for _, procs := range []int{1, 2, 8} {
		t.Run(strconv.Itoa(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var prepared, early atomic.Bool
			s := schedule{prepare: func() { prepared.Store(true) }, late: late}
			results := judgeConcurrently(props, func(p Property) Result {
				if late(p) && !prepared.Load() {
					early.Store(true)
				}
				return Result{Property: p}
			}, s)
			if procs == 1 && early.Load() {
				t.Error("a late property was judged before prepare ran")
			}
			var got []Property
			for _, r := range results {
				got = append(got, r.Property)
			}
			if !slices.Equal(got, props) {
				t.Fatalf("results for %v, want %v", got, props)
			}
		})
	}
	defer func() {
		pp, ok := recover().(*PropertyPanic)
		if !ok || pp.Property != PropExactlyOnce || pp.Value != "replay broke" {
			t.Fatalf("recovered %v, want prepare's panic as %s's", pp, PropExactlyOnce)
		}
		if !strings.Contains(string(pp.Stack), "TestJudgeConcurrentlyRunsPrepareBeforeLateProperties.func") {
			t.Fatalf("the panic's stack is not prepare's:\n%s", pp.Stack)
		}
	}()
	judgeConcurrently(props, func(p Property) Result {
		if late(p) {
			panic("raised again by " + string(p))
		}
		return Result{Property: p}
	}, schedule{prepare: func() { panic("replay broke") }, late: late})
	t.Fatal("judgeConcurrently returned despite panics")
}

// Only the properties that will read the sink replay wait for it: without an expected output
// none does (the output properties are unknown at once), and liveness only to find what a
// bounded job left uncommitted. Otherwise a long trace judged without a reference would
// replay every record for nothing.
func TestReadsReplayOnlyWhereTheReplayIsRead(t *testing.T) {
	output := map[string]Expected{"r": {Count: 1}}
	for _, c := range []struct {
		ref  Reference
		want []Property
	}{
		{Reference{}, nil},
		{Reference{Liveness: LivenessBounds{FinishTasks: []string{"sink"}}}, nil},
		{Reference{Output: output}, []Property{PropExactlyOnce, PropAtLeastOnce}},
		{Reference{Output: output, Liveness: LivenessBounds{FinishTasks: []string{"sink"}}}, []Property{PropExactlyOnce, PropAtLeastOnce, PropLiveness}},
	} {
		var got []Property
		for _, p := range AllProperties {
			if readsReplay(p, c.ref) {
				got = append(got, p)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v read the replay, want %v", c.ref, got, c.want)
		}
	}
}
