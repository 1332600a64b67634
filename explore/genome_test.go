package explore

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
)

// TestDrawReplaysItsGenome checks the genome's contract: the consumed genome holds every
// value the generator read, so drawing it again draws the same scenario, and a given
// genome's values are read first.
func TestDrawReplaysItsGenome(t *testing.T) {
	for _, g := range []Genome{{}, {1}, {42, 7, ^uint64(0), 0}} {
		s, consumed, err := Draw(g)
		if err != nil {
			t.Fatalf("Draw(%v): %v", g, err)
		}
		if !slices.Equal(consumed[:min(len(g), len(consumed))], g[:min(len(g), len(consumed))]) {
			t.Errorf("Draw(%v) consumed %v, not the genome's values first", g, consumed[:4])
		}
		again, consumedAgain, err := Draw(consumed)
		if err != nil {
			t.Fatalf("Draw(consumed): %v", err)
		}
		if !bytes.Equal(scenarios.Marshal(s), scenarios.Marshal(again)) {
			t.Errorf("the consumed genome of %v draws another scenario", g)
		}
		if !slices.Equal(consumed, consumedAgain) {
			t.Errorf("the consumed genome of %v consumes %d values when drawn again, not %d", g, len(consumedAgain), len(consumed))
		}
	}
}

// TestDrawCutsALongGenome: values the generator never read are not part of the genome, so
// mutating them would change nothing.
func TestDrawCutsALongGenome(t *testing.T) {
	_, consumed, _ := Draw(Genome{5})
	long := append(slices.Clone(consumed), 1, 2, 3)
	_, cut, err := Draw(long)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cut, consumed) {
		t.Errorf("Draw kept %d values of a genome whose draw reads %d", len(cut), len(consumed))
	}
}

// TestDrawTailDependsOnGenome: two genomes that differ continue differently past their end,
// so a mutation of one value does not leave the rest of the draw as it was by accident.
func TestDrawTailDependsOnGenome(t *testing.T) {
	_, a, _ := Draw(Genome{1})
	_, b, _ := Draw(Genome{2})
	if len(a) > 1 && len(b) > 1 && a[1] == b[1] {
		t.Errorf("genomes {1} and {2} continue with the same value %d", a[1])
	}
}

// TestDrawReportsARefusal: a generator panic is an error, so a bad mutant is discarded
// instead of ending the exploration.
func TestDrawReportsARefusal(t *testing.T) {
	defer func(f func(rand.Source) *scenarios.Scenario) { generateFrom = f }(generateFrom)
	generateFrom = func(src rand.Source) *scenarios.Scenario {
		src.Uint64()
		panic("scenarios: generate.From drew an invalid scenario: test\nsecond line")
	}
	s, consumed, err := Draw(Genome{1})
	if err == nil || s != nil || consumed != nil {
		t.Fatalf("Draw = %v, %v, %v; want the refusal as an error", s, consumed, err)
	}
	if !strings.Contains(err.Error(), "refused") {
		t.Errorf("error %q does not say the draw was refused", err)
	}
}

// TestRecorderBoundsADraw: a generator that reads for ever is stopped, and Draw reports it.
func TestRecorderBoundsADraw(t *testing.T) {
	defer func(f func(rand.Source) *scenarios.Scenario) { generateFrom = f }(generateFrom)
	generateFrom = func(src rand.Source) *scenarios.Scenario {
		for {
			src.Uint64()
		}
	}
	if _, _, err := Draw(nil); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Draw of an endless generator = %v, want the bound's error", err)
	}
}

// refusingGenerator refuses every draw, as generate.From does an invalid one.
func refusingGenerator(src rand.Source) *scenarios.Scenario {
	src.Uint64()
	panic("scenarios: generate.From drew an invalid scenario")
}
