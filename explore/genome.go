package explore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// Genome is the sequence of draws generate.From took from its source, in the order
// it took them. Replaying a genome replays the draw; changing one value changes one choice
// of the generator, or a few where a later choice depends on it.
type Genome []uint64

// tailStream keys the PCG that extends a genome past its end ("explore"), so that the tail
// shares no stream with the generator's own seeds.
const tailStream = 0x6578706c6f7265

// tailKey is the PCG seed of the draws that continue a genome past its end: a hash of the
// genome, so that two genomes that differ anywhere continue differently, and the same
// genome always continues the same way. FNV-1a over the values' bytes: a hash that is the
// same in every process, unlike maphash.
func (g Genome) tailKey() uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	var b [8]byte
	for _, v := range g {
		binary.LittleEndian.PutUint64(b[:], v)
		for _, c := range b {
			h = (h ^ uint64(c)) * prime
		}
	}
	return h
}

// recorder is the rand.Source generate.From draws from: the genome's values first, then the
// PCG keyed by the genome, recording every value it hands out. Its limit bounds a draw that
// would never end: no generator draws that many values, so reaching it is a broken draw.
type recorder struct {
	given Genome
	tail  *rand.PCG
	taken Genome
}

// maxDraws bounds the values one scenario draw may take. The generator takes a few hundred
// at most; a hundred thousand means it is looping.
const maxDraws = 100_000

func newRecorder(g Genome) *recorder {
	return &recorder{given: g, tail: rand.NewPCG(g.tailKey(), tailStream)}
}

// Uint64 hands out the next value and records it.
func (r *recorder) Uint64() uint64 {
	n := len(r.taken)
	if n >= maxDraws {
		panic(fmt.Sprintf("explore: a scenario draw took more than %d values", maxDraws))
	}
	// The tail advances on every read, so that the value at a position past g's end does not
	// depend on how many of g's values were read.
	v := r.tail.Uint64()
	if n < len(r.given) {
		v = r.given[n]
	}
	r.taken = append(r.taken, v)
	return v
}

// Draw runs generate.From on genome g and returns the scenario with the genome it
// actually consumed: g cut to what the generator read, or g extended by the tail's draws.
// Drawing the consumed genome again draws the same scenario: it holds every value read.
// generate.From panics on a draw it cannot complete (an invalid scenario, a generator bug
// that mutation found); Draw returns that as an error, so that the mutant is discarded and
// counted instead of ending the exploration.
func Draw(g Genome) (s *scenarios.Scenario, consumed Genome, err error) {
	r := newRecorder(g)
	defer func() {
		if p := recover(); p != nil {
			s, consumed, err = nil, nil, fmt.Errorf("explore: the generator refused the draw: %v", p)
		}
	}()
	s = generateFrom(r)
	return s, r.taken, nil
}

// generateFrom is generate.From; tests replace it with a generator that refuses.
var generateFrom = generate.From
