package scenarios

import (
	"os"
	"strings"
	"testing"
)

// readmeScenario returns the JSON example of docs/scenario-files.md.
func readmeScenario(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../docs/scenario-files.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```json\n")
	if !ok {
		t.Fatal("docs/scenario-files.md has no ```json example")
	}
	example, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal("the JSON example is not closed")
	}
	return []byte(example)
}

// TestReadmeScenarioExample keeps the example file of docs/scenario-files.md honest: it parses, and a run of
// it passes as it says it will.
func TestReadmeScenarioExample(t *testing.T) {
	s, err := Parse(readmeScenario(t))
	if err != nil {
		t.Fatalf("the example of docs/scenario-files.md does not parse: %v", err)
	}
	if len(s.Faults) != 3 || s.Expect.Verdict != VerdictPass {
		t.Errorf("parsed %d faults, expecting %s", len(s.Faults), s.Expect.Verdict)
	}
	for _, seed := range []uint64{1, 4} {
		_, res, err := Execute(NewSimulation(), s, seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unexpected {
			t.Errorf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
	}
}
