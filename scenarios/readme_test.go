package scenarios

import (
	"os"
	"strings"
	"testing"
)

// readmeScenario returns the JSON example under "## Scenario files" in the README.
func readmeScenario(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Scenario files\n")
	if !ok {
		t.Fatal("README has no section \"## Scenario files\"")
	}
	_, block, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatal("the Scenario files section has no ```json example")
	}
	example, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal("the JSON example is not closed")
	}
	return []byte(example)
}

// TestReadmeScenarioExample keeps the README's example file honest: it parses, and a run of
// it passes as it says it will.
func TestReadmeScenarioExample(t *testing.T) {
	s, err := Parse(readmeScenario(t))
	if err != nil {
		t.Fatalf("the README's example does not parse: %v", err)
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
