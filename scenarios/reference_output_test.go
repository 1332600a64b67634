package scenarios

import (
	"strconv"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/google/go-cmp/cmp"
)

// TestExpectedOutputMatchesTheNaiveReading checks the one-pass reading of the model against
// the plain one it replaced: every record's values gathered, then one row per record, with
// one count per delivery (one for an idempotent sink).
func TestExpectedOutputMatchesTheNaiveReading(t *testing.T) {
	var all []*Scenario
	all = append(all, Builtins()...)
	all = append(all, regressionScenarios(t)...) // most were drawn by the generator
	judged := 0
	for _, s := range all {
		if s.Sink == nil || s.Mode == ModeChandyLamport {
			continue
		}
		cfg, err := engineConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		model, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
		if err != nil {
			continue // a job whose output depends on timing has no reference either way
		}
		got, err := expectedOutput(s, model)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		want := map[string]checker.Expected{}
		for rid, values := range model.OutputValues() {
			count := len(values)
			if s.Sink.Kind == SinkIdempotent {
				count = 1
			}
			split, offset, _ := engine.SplitRID(rid)
			want[rid] = checker.Expected{Value: strconv.FormatInt(values[0], 10), Count: count, Split: split, Offset: offset}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: expected output differs (-naive +one pass):\n%s", s.Name, diff)
		}
		judged++
	}
	if judged < 20 {
		t.Fatalf("only %d scenarios had an output reference", judged)
	}
}

func TestExpectedOutputRefusesARecordWithTwoValues(t *testing.T) {
	s := &Scenario{Name: "two-values", Sink: &Sink{Kind: SinkAtLeastOnce}}
	model := &engine.Reference{Output: map[string][]engine.Record{
		"sink": {{RID: "r1", Value: 1}, {RID: "r1", Value: 2}},
	}}
	if _, err := expectedOutput(s, model); err == nil {
		t.Fatal("a record with two values was given a reference")
	}
}
