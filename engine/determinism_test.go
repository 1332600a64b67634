package engine_test

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
)

// runHash runs the crash scenario of seed and returns its trace hash.
func runHash(t *testing.T, seed uint64, mode protocol.Mode) string {
	cfg := modeConfig(mode, engine.TwoPhaseCommit)
	rng := rand.New(rand.NewPCG(seed, 7))
	faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}, 3, 150*time.Millisecond)
	job, err := simenvtest.RunJob(cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
	if err != nil {
		t.Error(err)
		return ""
	}
	return job.Recorder.Hash()
}

// TestSameSeedSameTrace runs every seed several times concurrently (and the CI runs this
// under -race) and requires one trace hash per seed, and different hashes across seeds.
func TestSameSeedSameTrace(t *testing.T) {
	const seeds, copies = 4, 3
	mode := protocol.ModeUnaligned
	hashes := make([][copies]string, seeds)
	var wg sync.WaitGroup
	for s := range seeds {
		for c := range copies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hashes[s][c] = runHash(t, uint64(s+1), mode)
			}()
		}
	}
	wg.Wait()
	seen := make(map[string]int)
	for s, hs := range hashes {
		for c := 1; c < copies; c++ {
			if hs[c] != hs[0] {
				t.Errorf("seed %d: run %d hash %s, run 0 hash %s", s+1, c, hs[c], hs[0])
			}
		}
		if other, dup := seen[hs[0]]; dup {
			t.Errorf("seeds %d and %d give the same hash %s", other+1, s+1, hs[0])
		}
		seen[hs[0]] = s
	}
}
