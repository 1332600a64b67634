package generate

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
)

// fuzzSource is a rand.Source that reads the fuzzer's bytes, eight to a draw, and then a
// PCG stream. Every choice of the generator (the mode, the shape, each setting, every
// fault's kind, time and target) up to the end of the bytes is then a few bytes the fuzzer
// can flip on purpose, so Go's coverage-guided fuzzer steers the draw toward protocol paths
// not yet reached instead of hashing a seed into a stream. The stream after the bytes (not
// zeros) keeps the generator's draw-until-distinct loops finite.
type fuzzSource struct {
	data []byte
	rest rand.PCG
}

func newFuzzSource(data []byte) *fuzzSource {
	s := &fuzzSource{data: data}
	s.rest.Seed(uint64(len(data)), generatorStream)
	return s
}

func (s *fuzzSource) Uint64() uint64 {
	if len(s.data) == 0 {
		return s.rest.Uint64()
	}
	var word [8]byte
	n := copy(word[:], s.data)
	s.data = s.data[n:]
	return binary.LittleEndian.Uint64(word[:])
}

// FuzzGeneratedScenario: the correct engine passes every scenario the generator draws, with
// the draw's choices taken from the fuzzer's bytes and the run's seed from the fuzzer too.
// Run it with
//
//	go test ./scenarios -run '^$' -fuzz FuzzGeneratedScenario -fuzztime 10m
//
// A failure is a false alarm or a real bug (of the protocol, the engine, a checker or the
// generator); the fuzzer keeps its input in testdata/fuzz, and the message has the scenario
// file, which `simrun run -scenario FILE -seed N` replays. Under plain go test only the seed
// corpus runs.
func FuzzGeneratedScenario(f *testing.F) {
	f.Add([]byte{}, uint64(1))
	f.Add([]byte("an aligned keyed shuffle, perhaps"), uint64(7))
	f.Add(make([]byte, 512), uint64(3))
	f.Add([]byte(strings.Repeat("\xff\x10\x80\x01\x7f\x33\xc0\x09", 40)), uint64(11))
	sim := scenarios.NewSimulation()
	f.Fuzz(func(t *testing.T, choices []byte, seed uint64) {
		s := From(newFuzzSource(choices))
		_, res, err := scenarios.Execute(sim, s, seed, scenarios.RunOptions{})
		if err != nil {
			t.Fatalf("drawn scenario rejected: %v\n%s", err, scenarios.Marshal(s))
		}
		if !res.Unexpected {
			return
		}
		t.Fatalf("seed %d: %s: %s%s\nscenario file:\n%s", seed, res.Verdict, res.Why, firstViolations(res), scenarios.Marshal(s))
	})
}
