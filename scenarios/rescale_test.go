package scenarios

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/faults"
)

// TestRescaleFaultNames: a rescale names an operator of the job, and faults may name the
// tasks a rescale of the schedule starts (sum-4 once the sum has five), not others.
func TestRescaleFaultNames(t *testing.T) {
	cases := []struct {
		name   string
		faults []faults.Entry
		want   string // "" valid
	}{
		{"a crash of a task the rescale starts", []faults.Entry{at(Millis(100), rescale("sum", 5)),
			at(Millis(200), faults.Fault{Kind: faults.CrashTask, Task: "sink-4"})}, ""},
		{"a crash of a task no rescale starts", []faults.Entry{at(Millis(100), rescale("sum", 5)),
			at(Millis(200), faults.Fault{Kind: faults.CrashTask, Task: "source-4"})}, `no task "source-4" in the system`},
		{"an unknown operator", []faults.Entry{at(Millis(100), rescale("avg", 2))}, `faults[0].fault.operator: no operator "avg" in the system`},
		{"no parallelism", []faults.Entry{at(Millis(100), faults.Fault{Kind: faults.Rescale, Operator: "sum"})}, "parallelism: required for rescale"},
	}
	for _, c := range cases {
		s := rescaleScenario("rescale-names", "", c.faults...)
		err := s.Complete("")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
