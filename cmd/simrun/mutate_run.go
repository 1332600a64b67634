package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/mutate"
)

// Timeouts of the steps of one mutant. A mutant that outruns one is a hang: a loop whose
// bound it broke.
const (
	mutateTestTimeout  = 2 * time.Minute
	mutateSweepTimeout = 3 * time.Minute
)

// mutation is one simrun mutate: the sample's order and what all mutants share.
type mutation struct {
	app      *app
	root     string
	opts     *mutateOptions
	order    []*mutate.Mutant
	tmp      string            // holds the correct build
	baseline map[string]string // the correct build's trace hash of each default run
	sweepJ   string            // -j of each mutated simrun's sweep
	equiv    map[string]string
}

// prepare builds the correct simrun and learns its default sweep's trace hashes, from the
// cache when this build ran before.
func (m *mutation) prepare() error {
	var err error
	if m.tmp, err = os.MkdirTemp("", "simrun-mutate-correct-"); err != nil {
		return err
	}
	m.equiv = mutate.Equivalents()
	m.sweepJ = strconv.Itoa(max(1, m.app.cpus/m.opts.jobs))
	exe := filepath.Join(m.tmp, "simrun")
	if err := mutate.Build(m.root, "", exe); err != nil {
		return err
	}
	out, err := runVersion(exe)
	if err != nil {
		return err
	}
	cache := baselineCachePath(out)
	if data, err := os.ReadFile(cache); err == nil && json.Unmarshal(data, &m.baseline) == nil && len(m.baseline) > 0 {
		return nil
	}
	m.app.note("mutate: running the default sweep with the correct build")
	runs, hung, err := mutate.RunSimrun(exe, m.tmp, unshardedEnv(), mutateSweepTimeout, "-json", "-j", m.sweepJ, "-artifacts", filepath.Join(m.tmp, "artifacts"))
	switch {
	case err != nil:
		return err
	case hung || len(runs) == 0:
		return errors.New("mutate: the correct build's default sweep ran nothing in time")
	}
	m.baseline = mutate.Hashes(runs)
	if data, err := json.Marshal(m.baseline); err == nil && cache != "" {
		_ = os.MkdirAll(filepath.Dir(cache), 0o755) // a cache that cannot be written only costs time
		_ = os.WriteFile(cache, data, 0o644)
	}
	return nil
}

func (m *mutation) cleanup() { os.RemoveAll(m.tmp) }

// runVersion returns the build id the simrun at exe prints, which names its baseline.
func runVersion(exe string) (string, error) {
	out, err := execOutput(exe, "version")
	if err != nil {
		return "", fmt.Errorf("mutate: %s version: %v", exe, err)
	}
	fields := strings.Fields(out)
	if len(fields) < 2 {
		return "", fmt.Errorf("mutate: %s version printed %q", exe, out)
	}
	return fields[1], nil
}

// baselineCachePath is where the baseline of build is cached: the user's cache folder,
// keyed by the build (a hash of the binary), so that a changed tree never reads a stale one.
func baselineCachePath(build string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ckptsim", "mutate-baseline-"+build+".json")
}

// note prints a progress line on stderr.
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, "simrun: "+format+"\n", args...)
}

// runAll runs mutants of the order on opts.jobs workers until opts.n of them compiled, and
// returns their outcomes in the order's order and how many were discarded; emit sees each
// outcome as soon as those before it in the order are known, so that a long measurement
// prints as it goes. A mutant is handed out only while the compiled and the running ones
// number fewer than n, so the mutants run are the first n of the order that compile,
// whatever the schedule. A worker whose mutant did not compile asks again, so a shortfall
// is always made up.
func (m *mutation) runAll(emit func(*mutate.Outcome)) ([]*mutate.Outcome, int, error) {
	var mu sync.Mutex
	next, running, discarded, printed := 0, 0, 0, 0
	results := map[int]*mutate.Outcome{}
	finished := map[int]bool{}
	var firstErr error
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= len(m.order) || len(results)+running >= m.opts.n {
			return 0, false
		}
		next, running = next+1, running+1
		return next - 1, true
	}
	var wg sync.WaitGroup
	for range m.opts.jobs {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				out, err := m.runOne(i)
				mu.Lock()
				running--
				finished[i] = true
				switch {
				case err != nil && errors.Is(err, mutate.ErrNoCompile):
					discarded++
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil:
					results[i] = out
					m.app.note("mutate: [%d/%d] %s: tests %s, %s", len(results), m.opts.n, out.ID, out.Tests, catchWord(out))
				}
				for ; finished[printed]; printed++ {
					if o := results[printed]; o != nil {
						emit(o)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	var outcomes []*mutate.Outcome
	for i := range next {
		if o, ok := results[i]; ok {
			outcomes = append(outcomes, o)
		}
	}
	return outcomes, discarded, nil
}
