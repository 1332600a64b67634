package scenarios

import (
	"strings"
	"testing"
)

// A run that fires more events at one instant than the kernel allows fails time-advances,
// pinned to the last traced event, instead of ending at a limit. The standard job fires a
// few events at its first instant, so a bound of two stands for a loop here.
func TestTimeStandingStillFails(t *testing.T) {
	s, err := Lookup("standard")
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := Execute(NewSimulation(), s, 1, RunOptions{maxInstantEvents: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != VerdictFail || len(res.Violations) != 1 || res.Violations[0].Property != PropertyTimeAdvances ||
		!strings.Contains(res.Violations[0].Message, "virtual time stood still at 0s: 2 events fired") {
		t.Fatalf("got %s %v", res.Verdict, res.Violations)
	}
	// The same run with the kernel's own bound passes.
	if _, res, err = Execute(NewSimulation(), s, 1, RunOptions{}); err != nil || res.Verdict != VerdictPass {
		t.Fatalf("with the default bound: %v %v", res, err)
	}
}
