package scenarios

import (
	"bytes"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// knownIssues are built-in scenarios that fail today because of a bug outside this package,
// with the bug. TestBuiltinsMeetTheirExpectations logs them instead of failing, and fails
// once one passes, so that the entry is removed when the bug is fixed.
var knownIssues = map[string]string{}

// TestBuiltinsMeetTheirExpectations runs every built-in this build supports on the first two
// of its default seeds with the real simulation: positive scenarios must pass, negative
// controls must fail with their property.
func TestBuiltinsMeetTheirExpectations(t *testing.T) {
	sim := NewSimulation()
	for _, s := range Builtins() {
		t.Run(s.Name, func(t *testing.T) {
			for seed := s.Seeds.First; seed < s.Seeds.First+2 && seed <= s.Seeds.Last; seed++ {
				_, res, err := Execute(sim, s, seed, RunOptions{})
				if errors.Is(err, ErrUnsupported) {
					t.Skip(err)
				}
				if err != nil {
					t.Fatal(err)
				}
				issue, known := knownIssues[s.Name]
				switch {
				case res.Unexpected && known:
					t.Logf("seed %d: known issue: %s", seed, issue)
				case res.Unexpected:
					t.Errorf("seed %d: %s: %s; violations: %v", seed, res.Verdict, res.Why, res.Violations[:min(3, len(res.Violations))])
				case known:
					t.Errorf("seed %d: as expected now; remove it from knownIssues", seed)
				}
			}
		})
	}
}

// TestSameSeedSameTrace is the determinism promise: the same scenario and seed give the same
// trace hash at any GOMAXPROCS, whichever goroutine runs it and whatever runs beside it (and,
// in CI, under the race detector); another seed gives
// another trace.
func TestSameSeedSameTrace(t *testing.T) {
	for _, name := range []string{StandardName, "control-lost-state", "storage-faults"} {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		hashes := make([]string, 6)
		// One run with a single OS thread, the others at once beside each other.
		previous := runtime.GOMAXPROCS(1)
		_, single, err := Execute(NewSimulation(), s, 7, RunOptions{})
		runtime.GOMAXPROCS(previous)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range hashes {
			wg.Go(func() {
				_, res, err := Execute(NewSimulation(), s, 7, RunOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				hashes[i] = res.TraceHash
			})
		}
		wg.Wait()
		for i := range hashes {
			if hashes[i] != single.TraceHash {
				t.Fatalf("%s seed 7: hash %s at GOMAXPROCS 1, %s beside other runs", name, single.TraceHash, hashes[i])
			}
		}
		_, other, err := Execute(NewSimulation(), s, 8, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if other.TraceHash == hashes[0] {
			t.Errorf("%s: seeds 7 and 8 give the same trace", name)
		}
	}
}

func TestTraceFileMatchesTheResult(t *testing.T) {
	s, err := Lookup("coordinator-failover")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, res, err := Execute(NewSimulation(), s, 3, RunOptions{Trace: &buf, Build: "b1"})
	if err != nil {
		t.Fatal(err)
	}
	header, events, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if header.Scenario != s.Name || header.Seed != 3 || header.Build != "b1" {
		t.Errorf("header %+v", header)
	}
	if trace.HashEvents(events) != res.TraceHash || uint64(len(events)) != res.Events {
		t.Errorf("the trace file hashes to %s with %d events; the result says %s with %d", trace.HashEvents(events), len(events), res.TraceHash, res.Events)
	}
	if res.CheckpointsCompleted == 0 || len(res.CheckpointNanos) != res.CheckpointsCompleted || len(res.RecoveryNanos) == 0 || res.FaultsInjected != len(s.Faults) {
		t.Errorf("measurements: %d completed, %d durations, %d recoveries, %d of %d faults injected",
			res.CheckpointsCompleted, len(res.CheckpointNanos), len(res.RecoveryNanos), res.FaultsInjected, len(s.Faults))
	}
}
