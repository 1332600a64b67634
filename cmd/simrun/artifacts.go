package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
)

// artifactPolicy decides which runs leave an artifact and where.
type artifactPolicy struct {
	dir      string // where artifacts go
	explicit bool   // -artifacts was given: save every failing run, expected or not
}

// artifactPolicy returns the policy for -artifacts flagDir. The directory is checked now, so
// that one that cannot exist (a path through a file) is bad input before anything runs, but
// created only when the first artifact is saved: input found bad later (a scenario that
// cannot be planned) leaves no empty directory behind.
func (a *app) artifactPolicy(flagDir string) (artifactPolicy, error) {
	if flagDir == "" {
		return artifactPolicy{dir: a.artifactDir}, nil
	}
	if err := checkCanBeDir(flagDir); err != nil {
		return artifactPolicy{}, fmt.Errorf("-artifacts %s: %v", flagDir, err)
	}
	return artifactPolicy{dir: flagDir, explicit: true}, nil
}

// checkCanBeDir reports whether dir is a directory or could be made one: its nearest
// existing ancestor must be a directory that simrun may write in (a probe file says so), so
// that an artifact is never lost to a directory found unwritable after the runs.
func checkCanBeDir(dir string) error {
	for path := filepath.Clean(dir); ; path = filepath.Dir(path) {
		info, err := os.Stat(path)
		switch {
		case err == nil && info.IsDir():
			probe, err := os.CreateTemp(path, ".simrun-probe-*")
			if err != nil {
				return fmt.Errorf("cannot write in %s: %v", path, errors.Unwrap(err))
			}
			probe.Close()
			return os.Remove(probe.Name())
		case err == nil:
			return fmt.Errorf("%s is not a directory", path)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		case filepath.Dir(path) == path:
			return nil // nothing exists up to the root, which the system will say when creating
		}
	}
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
