package mutate

import (
	"slices"
	"strings"
	"testing"
)

// cannedSweep is a sweep's -json output as a mutated simrun prints it: runs, then the
// summary line, which is no run.
const cannedSweep = `{"scenario":"standard","seed":1,"verdict":"pass","expected":"pass","unexpected":false,"violations":[],"trace_hash":"aa"}
{"scenario":"standard","seed":2,"verdict":"fail","expected":"pass","unexpected":true,"violations":[{"property":"panic","message":"panic at seq 4: engine: unknown checkpoint 9"}],"trace_hash":"ef46db3751d8e999"}
{"scenario":"control-lost-state","seed":1,"verdict":"fail","expected":"fail","unexpected":false,"violations":[{"property":"exactly-once"}],"trace_hash":"cc"}
{"summary":true,"scenario":"total","runs":3,"unexpected":1}
`

func TestParseRunsSkipsTheSummary(t *testing.T) {
	runs, err := ParseRuns(strings.NewReader(cannedSweep + `{"explore":{"runs":9}}` + "\n"))
	if err != nil || len(runs) != 3 {
		t.Fatalf("ParseRuns = %d runs, %v; want 3", len(runs), err)
	}
	if _, err := ParseRuns(strings.NewReader("panic: oops\n")); err == nil {
		t.Error("ParseRuns accepted a line that is not JSON")
	}
}

func parse(t *testing.T, text string) []Run {
	t.Helper()
	runs, err := ParseRuns(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		runs  string
		want  Catch
		props []string
	}{
		{"expected verdicts", `{"scenario":"s","seed":1,"verdict":"fail","unexpected":false,"violations":[{"property":"exactly-once"}]}`, CatchNone, nil},
		{"a panic only", cannedSweep, CatchPanic, nil},
		{"a limit only", `{"scenario":"s","seed":1,"verdict":"limit","unexpected":true}`, CatchLimit, nil},
		{"unknown where pass", `{"scenario":"s","seed":1,"verdict":"unknown","unexpected":true}`, CatchVerdict, nil},
		{"a rule beats a panic", cannedSweep + `{"scenario":"s","seed":3,"verdict":"fail","unexpected":true,"violations":[{"property":"liveness"},{"property":"consistent-cut"}]}`, CatchRule, []string{"consistent-cut", "liveness"}},
		{"an invariant is a rule", `{"scenario":"s","seed":1,"verdict":"fail","unexpected":true,"violations":[{"property":"invariant"}]}`, CatchRule, []string{"invariant"}},
		{"a panic beats a limit", `{"scenario":"s","seed":1,"verdict":"limit","unexpected":true}` + "\n" + cannedSweep, CatchPanic, nil},
	}
	for _, tt := range tests {
		got, props := Classify(parse(t, tt.runs))
		if got != tt.want || !slices.Equal(props, tt.props) {
			t.Errorf("%s: Classify = %s %v, want %s %v", tt.name, got, props, tt.want, tt.props)
		}
	}
}

func TestFirstPanic(t *testing.T) {
	if got := FirstPanic(parse(t, cannedSweep)); got != "panic at seq 4: engine: unknown checkpoint 9" {
		t.Errorf("FirstPanic = %q", got)
	}
}

func TestChangedComparesWithTheCorrectBuild(t *testing.T) {
	runs := parse(t, cannedSweep)
	baseline := Hashes(runs)
	if Changed(runs, baseline) {
		t.Error("a sweep changed against itself")
	}
	baseline["standard/2"] = "bb"
	if !Changed(runs, baseline) {
		t.Error("a changed trace hash went unseen")
	}
	if !Changed(runs, map[string]string{}) {
		t.Error("runs missing from the baseline went unseen")
	}
}

func TestTallyCountsTheGoal(t *testing.T) {
	outcomes := []*Outcome{
		{Mutant: &Mutant{ID: "a"}, Tests: TestsKilled, Catch: CatchRule, Changed: true},
		{Mutant: &Mutant{ID: "b"}, Tests: TestsKilled, Catch: CatchPanic, Changed: true},
		{Mutant: &Mutant{ID: "c"}, Tests: TestsKilled, Catch: CatchNone},
		{Mutant: &Mutant{ID: "d"}, Tests: TestsPassed, Catch: CatchVerdict, Changed: true},
		{Mutant: &Mutant{ID: "e"}, Tests: TestsPassed, Catch: CatchNone, Equivalent: "a bound no run reaches"},
		{Mutant: &Mutant{ID: "f"}, Tests: TestsHang, Catch: CatchHang},
	}
	s := Tally(outcomes, 100, 4)
	if s.GoalOf != 3 || s.GoalCaught != 1 {
		t.Errorf("goal %d of %d, want 1 of 3", s.GoalCaught, s.GoalOf)
	}
	if s.Survivors != 3 || s.Equivalent != 1 || s.Unchanged != 2 || s.Killed != 3 || s.TestsHang != 1 {
		t.Errorf("summary %+v", s)
	}
	if Percent(1, 3) != 33 || Percent(2, 3) != 67 || Percent(1, 0) != 0 {
		t.Error("Percent rounds wrong")
	}
}

func TestEquivalents(t *testing.T) {
	Equivalents() // the embedded file parses
	marks, err := ParseEquivalents("# comment\n\nprotocol/a.go:1:2:delete the call repeats a later one\n")
	if err != nil || marks["protocol/a.go:1:2:delete"] != "the call repeats a later one" {
		t.Errorf("ParseEquivalents = %v, %v", marks, err)
	}
	for _, bad := range []string{"protocol/a.go:1:2:delete", "nonsense reason", "p/a.go:1:2:x r\np/a.go:1:2:x r"} {
		if _, err := ParseEquivalents(bad); err == nil {
			t.Errorf("ParseEquivalents accepted %q", bad)
		}
	}
}

// TestEquivalentsNameMutants: every mark names a mutant of today's source. Ids carry line
// and column, so an edit above a mark moves it; a mark left behind would hide nothing and
// mislead the next reader.
func TestEquivalentsNameMutants(t *testing.T) {
	all, err := Enumerate("..", []string{"protocol", "engine"})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range all {
		ids[m.ID] = true
	}
	for id := range Equivalents() {
		if !ids[id] {
			t.Errorf("equivalent.txt marks %s, which is no mutant of the source any more: simrun mutate -list -n 0 shows the ids", id)
		}
	}
}
