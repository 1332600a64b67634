package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
)

// artifactPolicy decides which runs leave an artifact and where.
type artifactPolicy struct {
	dir      string // where artifacts go
	explicit bool   // -artifacts was given: save every failing run, expected or not
}

func (a *app) artifactPolicy(flagDir string) (artifactPolicy, error) {
	if flagDir == "" {
		return artifactPolicy{dir: a.artifactDir}, nil
	}
	// Create it now, so that an unusable directory is bad input before anything runs.
	if err := os.MkdirAll(flagDir, 0o755); err != nil {
		return artifactPolicy{}, fmt.Errorf("-artifacts %s: cannot create the directory: %v", flagDir, err)
	}
	return artifactPolicy{dir: flagDir, explicit: true}, nil
}

// wants reports whether a run with result r gets an artifact: with -artifacts every failing
// run (and any unexpected pass of a negative control); without it only unexpected results.
func (p artifactPolicy) wants(r *scenarios.Result) bool {
	if p.explicit {
		return r.Failed() || r.Unexpected
	}
	return r.Unexpected
}

// save writes the artifact of a run if the policy wants one, records its path in r and
// returns it ("" when none was written). A failure to write is reported, not fatal: the
// run's verdict still stands.
func (a *app) save(p artifactPolicy, plan *scenarios.Plan, r *scenarios.Result) string {
	if !p.wants(r) {
		return ""
	}
	path, err := scenarios.SaveArtifact(p.dir, scenarios.NewArtifact(plan, r, a.build()))
	if err != nil {
		fmt.Fprintf(a.stderr, "simrun: cannot save the artifact of %s seed %d: %s\n", r.Scenario, r.Seed, trimPackage(err))
		return ""
	}
	r.Artifact = path
	return path
}

// replayCommand is the one command that replays an artifact.
func (a *app) replayCommand(path string) string {
	return a.invocation + " replay " + shellQuote(path)
}

// shellQuote quotes s for a POSIX shell if it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+=:@", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
