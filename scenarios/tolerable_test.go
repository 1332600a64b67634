package scenarios

import (
	"strings"
	"testing"
)

// TestTolerableFailuresZeroMeansZero: a file that says tolerable_failures 0 gets a job that
// tolerates none (it once silently got the protocol's default of 3); a file that says
// nothing gets the default, written into the scenario so that its artifacts say which limit
// the runs had.
func TestTolerableFailuresZeroMeansZero(t *testing.T) {
	file := func(checkpoint string) string {
		return `{"name": "t", "mode": "aligned", "topology": {"kind": "pipeline", "parallelism": 1},
			"workload": {"kind": "pass-through"}, "sink": {"kind": "idempotent"}, "checkpoint": {` + checkpoint + `},
			"expect": {"verdict": "pass"}}`
	}
	for _, c := range []struct {
		checkpoint string
		want       int
	}{
		{`"tolerable_failures": 0`, 0},
		{`"tolerable_failures": 2`, 2},
		{``, 3},
	} {
		s, err := Parse([]byte(file(c.checkpoint)))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := engineConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Checkpoint.TolerableFailures != c.want {
			t.Errorf("%s: the job tolerates %d, want %d", c.checkpoint, cfg.Checkpoint.TolerableFailures, c.want)
		}
		if want := `"tolerable_failures": ` + string(rune('0'+c.want)); !strings.Contains(string(Marshal(s)), want) {
			t.Errorf("%s: the completed scenario does not say %s:\n%s", c.checkpoint, want, Marshal(s))
		}
	}
	if _, err := Parse([]byte(file(`"tolerable_failures": -1`))); err == nil || !strings.Contains(err.Error(), "tolerable_failures") {
		t.Errorf("a negative limit: %v", err)
	}
}
