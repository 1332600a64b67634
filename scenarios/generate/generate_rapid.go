package generate

import (
	"math/bits"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/scenarios"
)

// Drawn is Generate as a rapid generator: every choice of the draw (the mode, the shape,
// each setting, every fault's kind, trigger and target) is a value rapid draws, so when a
// property fails, rapid shrinks the scenario by its structure (fewer faults, the first
// mode, a smaller graph, a shorter input) rather than by a seed number, which has none.
// Use it inside rapid.Check, running the scenario on a seed drawn beside it:
//
//	s := generate.Drawn().Draw(t, "scenario")
//	seed := rapid.Uint64().Draw(t, "seed")
//
// The scenario is complete (defaults applied, validated) and expects a pass, as Generate's.
func Drawn() *rapid.Generator[*scenarios.Scenario] {
	return rapid.Custom(func(t *rapid.T) *scenarios.Scenario {
		s := generateWith(rapidSource{t}, "Drawn")
		s.Description = "Drawn by generate.Drawn: " + Summary(s) + "."
		return s
	})
}

// rapidSource hands the generator rapid's draws. rapid favours small numbers and shrinks
// toward zero, while the generator maps a word to a choice by its high bits (math/rand's
// IntN multiplies and keeps the top half): reversing the bits puts rapid's few random low
// bits on top, so choices stay spread while drawing and still shrink to the first choice.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Uint64() uint64 {
	return bits.Reverse64(rapid.Uint64().Draw(s.t, "choice"))
}
