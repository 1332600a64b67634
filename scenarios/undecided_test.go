package scenarios

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestUndecidedRunIsUnknownNotLimit: a run that ends as planned with a property the checkers
// cannot decide (exactly-once without an expected output: a token ring has no sink) has the
// verdict unknown, names the property in Undecided, and gives no limit reason; it is
// unexpected. The verdict limit is kept for runs that hit a run limit.
func TestUndecidedRunIsUnknownNotLimit(t *testing.T) {
	s, err := Lookup("chandy-lamport-ring")
	if err != nil {
		t.Fatal(err)
	}
	s = s.Clone()
	s.Check = []checker.Property{checker.PropExactlyOnce}
	plan, err := NewSimulation().Plan(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(NewSimulation(), plan, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"exactly-once (the reference has no expected output)"}
	if res.Verdict != VerdictUnknown || !slices.Equal(res.Undecided, want) || res.LimitReason != "" {
		t.Fatalf("verdict %s, undecided %q, limit reason %q; want unknown, %q, none", res.Verdict, res.Undecided, res.LimitReason, want)
	}
	res.Judge(s.Expect)
	if !res.Unexpected || res.Why != "undecided: "+want[0] {
		t.Errorf("judged unexpected=%v why=%q", res.Unexpected, res.Why)
	}
}
