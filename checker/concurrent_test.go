package checker

import (
	"slices"
	"strings"
	"testing"
)

// TestJudgeConcurrentlyKeepsOrderAndRaisesTheFirstPanic checks that results come in the
// order of the properties, and that a panic reaches the caller as a sequential run would
// raise it: the first in property order.
func TestJudgeConcurrentlyKeepsOrderAndRaisesTheFirstPanic(t *testing.T) {
	props := []Property{PropWellFormed, PropExactlyOnce, PropConsistentCut, PropLiveness}
	results := judgeConcurrently(props, func(p Property) Result { return Result{Property: p} })
	var got []Property
	for _, r := range results {
		got = append(got, r.Property)
	}
	if !slices.Equal(got, props) {
		t.Fatalf("results for %v, want %v", got, props)
	}
	if results := judgeConcurrently(nil, nil); results != nil {
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
	})
	t.Fatal("judgeConcurrently returned despite panics")
}

// Judged in turn, the properties give the same results in the same order, and a panic goes
// up as it was raised, the first in property order.
func TestJudgeInTurnMatchesConcurrently(t *testing.T) {
	props := []Property{PropWellFormed, PropExactlyOnce, PropConsistentCut, PropLiveness}
	judge := func(p Property) Result { return Result{Property: p, Note: "judged " + string(p)} }
	if inTurn, concurrently := judgeInTurn(props, judge), judgeConcurrently(props, judge); !slices.EqualFunc(inTurn, concurrently,
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
