package sim

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// demoGoldenHash is runDemo(1)'s hash. It pins determinism across machines: the same seed must
// give this hash on every architecture, at any GOMAXPROCS, with and without -race. It changes
// only when the kernel's semantics or the demo workload change; then print the new value
// (go test -run TestDemoGolden -v ./sim/) and say why in the commit.
const demoGoldenHash = "e1fd43c7612afeff"

func TestDemoGolden(t *testing.T) {
	result, err := runDemo(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed 1: %s (%d trace events, %d kernel events, stop %v)", result.TraceHash, result.TraceEvents, result.Events, result.Stop)
	if result.TraceHash != demoGoldenHash {
		t.Fatalf("runDemo(1) hash %s, want %s", result.TraceHash, demoGoldenHash)
	}
}

// TestDemoIsAFunctionOfItsSeed runs the demo for several seeds, each twice and from several
// goroutines at once: equal seeds must give equal logs and hashes, different seeds different
// hashes. Run under -race and various GOMAXPROCS, it also shows that kernels share nothing.
func TestDemoIsAFunctionOfItsSeed(t *testing.T) {
	seeds := []uint64{1, 2, 3, 42, 1 << 63}
	const copies = 4
	type run struct {
		result demoResult
		log    string
	}
	runs := make([][]run, len(seeds))
	var wg sync.WaitGroup
	for i, seed := range seeds {
		runs[i] = make([]run, copies)
		for c := range copies {
			wg.Go(func() {
				var log bytes.Buffer
				result, err := runDemo(seed, &log)
				if err != nil {
					t.Error(err)
				}
				runs[i][c] = run{result, log.String()}
			})
		}
	}
	wg.Wait()
	hashes := map[string]uint64{}
	for i, seed := range seeds {
		first := runs[i][0]
		if first.result.Stop != StopReached || first.result.TraceEvents < 100 {
			t.Errorf("seed %d: stop %v after %d events; the demo should run its full course", seed, first.result.Stop, first.result.TraceEvents)
		}
		header, events, err := trace.ReadAll(strings.NewReader(first.log))
		if err != nil {
			t.Fatalf("seed %d: reading the trace back: %v", seed, err)
		}
		if header.Seed != seed || uint64(len(events)) != first.result.TraceEvents || trace.HashEvents(events) != first.result.TraceHash {
			t.Errorf("seed %d: the trace read back (seed %d, %d events, hash %s) disagrees with %+v", seed, header.Seed, len(events), trace.HashEvents(events), first.result)
		}
		for c, other := range runs[i][1:] {
			if other.result != first.result || other.log != first.log {
				t.Errorf("seed %d: copy %d differs: %+v vs %+v", seed, c+1, other.result, first.result)
			}
		}
		if earlier, ok := hashes[first.result.TraceHash]; ok {
			t.Errorf("seeds %d and %d give the same hash", earlier, seed)
		}
		hashes[first.result.TraceHash] = seed
	}
}

// TestDemoExercisesTheFaults guards the demo's purpose: its log must show every kind of
// trouble the kernel models, or the determinism tests above would prove less than they say.
func TestDemoExercisesTheFaults(t *testing.T) {
	var log bytes.Buffer
	if _, err := runDemo(1, &log); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"kind":"sim.host.crash"`, `"kind":"sim.host.start","task":"n2","incarnation":"2"`,
		`"kind":"sim.host.pause"`, `"reason":"partitioned"`, `"kind":"sim.link.break"`,
		`"fault":"corrupt"`, `"fault":"torn"`, "store is unavailable", "restored value=",
		"stored value is corrupt", `"phase":"heal"`,
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the demo log never shows %q", want)
		}
	}
}
