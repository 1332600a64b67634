package checker

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/checker/linz"
)

// singleReadLinearizable is checked against porcupine, the dumb reference: on every small
// history with one read they agree.
func TestSingleReadAgreesWithPorcupine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Invocations at even positions and returns at odd ones, as on a trace timeline.
		span := func(label string) (call, ret int64) {
			a := rapid.Int64Range(0, 12).Draw(t, label+" call")
			b := rapid.Int64Range(a, 12).Draw(t, label+" return")
			return 2 * a, 2*b + 1
		}
		base := rapid.Int64Range(0, 3).Draw(t, "base")
		var commits []visibilityOp
		var total int64
		for i := range rapid.IntRange(0, 8).Draw(t, "commits") {
			call, ret := span("commit")
			n := rapid.Int64Range(0, 4).Draw(t, "records")
			total += n
			commits = append(commits, visibilityOp{call: call, ret: ret, records: n, client: i})
		}
		call, ret := span("read")
		read := visibilityOp{call: call, ret: ret, read: true, client: len(commits),
			records: rapid.Int64Range(0, base+total+1).Draw(t, "seen")}

		var history []porcupine.Operation
		for _, c := range append(commits, read) {
			history = append(history, c.operation())
		}
		want, _ := linz.Run(linz.CounterModel(base), history, linz.Limits{Steps: 1 << 40, Timeout: time.Minute}, nil)
		if want.Result == porcupine.Unknown {
			t.Fatalf("porcupine undecided: %+v", want)
		}
		if got := singleReadLinearizable(base, commits, read); got != (want.Result == porcupine.Ok) {
			t.Fatalf("singleReadLinearizable = %v, porcupine says %v\nbase %d\ncommits %+v\nread %+v", got, want.Result, base, commits, read)
		}
	})
}

func TestSubsetSums(t *testing.T) {
	for _, tc := range []struct {
		values []int64
		target int64
		want   bool
	}{
		{nil, 0, true},
		{nil, 1, false},
		{[]int64{2, 2, 2}, 4, true},
		{[]int64{2, 2, 2}, 5, false},
		{[]int64{3, 5, 7}, 12, true},
		{[]int64{3, 5, 7}, 16, false},
		{[]int64{3, 5, 7}, 15, true},
		{[]int64{1000, 999}, 1999, true},
	} {
		if got := subsetSums(tc.values, tc.target); got != tc.want {
			t.Errorf("subsetSums(%v, %d) = %v", tc.values, tc.target, got)
		}
	}
}
