package scenarios

import (
	"fmt"
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

// TestWrittenZerosAreRefused: a 0 written where leaving the field out gives another default
// (parallelism 1, interval 100ms, ...) would silently mean that default, so it is refused
// with a line that names the field and the default; where a zero is a value of its own it
// is kept.
func TestWrittenZerosAreRefused(t *testing.T) {
	base := `{"name": "z", "mode": "aligned", "topology": {"kind": "pipeline"%s}, "workload": {"kind": "pass-through"},
		"sink": {"kind": "idempotent"}, "checkpoint": {%s}, "expect": {"verdict": "pass"}}`
	for _, c := range []struct {
		topology, checkpoint, want string
	}{
		{`, "parallelism": 0`, ``, "scenario.topology.parallelism: a written 0 would silently mean the default (1)"},
		{``, `"interval": "0s"`, "scenario.checkpoint.interval: a written 0 would silently mean the default (100ms)"},
		{``, `"max_concurrent": 0`, "scenario.checkpoint.max_concurrent"},
		{``, `"max_buffered_records": 0`, "scenario.checkpoint.max_buffered_records: a written 0 would silently mean the default (the protocol's 100000)"},
	} {
		_, err := Parse([]byte(fmt.Sprintf(base, c.topology, c.checkpoint)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%s: %v, want %q", c.topology, c.checkpoint, err, c.want)
		}
	}
	nodes := `{"name": "z", "mode": "chandy-lamport", "topology": {"kind": "explicit", "nodes": [{"name": "A", "kind": "process"},
		{"name": "B", "kind": "process", "parallelism": 0}], "links": [{"from": "A", "to": "B"}, {"from": "B", "to": "A"}]},
		"workload": {"kind": "tokens"}, "expect": {"verdict": "pass"}}`
	if _, err := Parse([]byte(nodes)); err == nil || !strings.Contains(err.Error(), "scenario.topology.nodes[1].parallelism") {
		t.Errorf("a node's parallelism 0: %v", err)
	}
	if _, err := Parse([]byte(fmt.Sprintf(base, ``, `"tolerable_failures": 0, "min_pause": "0s"`))); err != nil {
		t.Errorf("zeros that are values of their own: %v", err)
	}
}
