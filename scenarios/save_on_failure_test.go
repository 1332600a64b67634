package scenarios_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// logTB records what SaveOnFailure logs.
type logTB struct{ lines []string }

func (l *logTB) Helper() {}
func (l *logTB) Logf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// An unexpected run's artifact is saved, replays as the same case, and is logged with its
// replay command; a run as expected saves nothing.
func TestSaveOnFailureKeepsTheCase(t *testing.T) {
	dir := t.TempDir()
	s, err := scenarios.Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	fails := &scenariotest.Fake{Fails: func(*scenarios.Plan) []checker.Property { return []checker.Property{checker.PropExactlyOnce} }}
	plan, res, err := scenarios.Execute(fails, s, 3, scenarios.RunOptions{})
	if err != nil || !res.Unexpected {
		t.Fatalf("the fake run: %v, %+v", err, res)
	}
	var log logTB
	path := scenarios.SaveOnFailure(&log, dir, plan, res)
	if filepath.Dir(path) != dir || len(log.lines) != 1 || !strings.Contains(log.lines[0], "replay: go run ./cmd/simrun replay "+path) {
		t.Fatalf("saved %q, logged %q", path, log.lines)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	art, err := scenarios.ParseArtifact(data)
	if err != nil || art.Seed != 3 || art.Scenario.Name != "pipeline-calm" || art.Build != scenarios.GoTestBuild {
		t.Fatalf("artifact: %v, %+v", err, art)
	}

	_, ok, err := scenarios.Execute(scenarios.NewSimulation(), s, 3, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := scenarios.SaveOnFailure(&log, dir, plan, ok); got != "" {
		t.Errorf("a run as expected saved %s", got)
	}
}
