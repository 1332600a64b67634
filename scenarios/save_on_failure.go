package scenarios

import (
	"cmp"
	"os"
)

// TB is the part of testing.TB that SaveOnFailure needs, so that this package does not
// depend on package testing.
type TB interface {
	Helper()
	Logf(format string, args ...any)
}

// GoTestBuild is the build an artifact saved from a go test suite records: not simrun's, so
// that a replay by simrun takes a different trace hash for a change of build, not for
// nondeterminism.
const GoTestBuild = "go-test"

// SaveOnFailure keeps the case of an unexpected run of a go test suite: it saves the run's
// artifact into dir (when empty, $CKPTSIM_ARTIFACTS, else "simrun-artifacts"), never over
// another file, and logs where, with the command that replays it. It returns the path, or
// "" for a run as expected. A save that fails is logged: the test's own failure still says
// what went wrong.
func SaveOnFailure(t TB, dir string, plan *Plan, res *Result) string {
	t.Helper()
	if res == nil || !res.Unexpected {
		return ""
	}
	dir = cmp.Or(dir, os.Getenv("CKPTSIM_ARTIFACTS"), "simrun-artifacts")
	path, err := SaveArtifact(dir, NewArtifact(plan, res, GoTestBuild))
	if err != nil {
		t.Logf("%s seed %d: the artifact could not be saved: %v", res.Scenario, res.Seed, err)
		return ""
	}
	t.Logf("%s seed %d: %s; artifact %s (replay: go run ./cmd/simrun replay %s)", res.Scenario, res.Seed, res.Verdict, path, path)
	return path
}
