package explore

import (
	"math/rand/v2"
	"slices"
)

// Mutation is one way to change a genome. The draws are choices: math/rand/v2 maps a value
// to a bounded integer by its high bits (v*n/2^64), so a nudge of the high bits moves a
// choice to its neighbour, and 0 and 2^64-1 pick the smallest and the largest option.
type Mutation int

const (
	// MutateReplace sets one draw to a fresh random value: any choice at that point.
	MutateReplace Mutation = iota
	// MutateNudge adds or subtracts a power of two in the high bits of one draw: the
	// neighbouring choice, or one a few steps away.
	MutateNudge
	// MutateExtreme sets one draw to 0 or 2^64-1: the least or the most of that choice.
	MutateExtreme
	// MutateInsert inserts a random draw, shifting every later choice by one.
	MutateInsert
	// MutateDelete deletes one draw, shifting every later choice back by one.
	MutateDelete
	// MutateCopy copies a run of draws over another place in the same genome, so that a
	// choice made once (a fault's kind, a trigger) is made again elsewhere.
	MutateCopy
	// MutateSplice joins a prefix of the genome to the rest of another corpus entry's.
	MutateSplice
	// MutateTruncate cuts the genome: the draws after the cut come from the tail anew.
	MutateTruncate
	// MutateSeed changes the run's own seed and leaves the scenario as it is: a swarm's
	// faults, the jitter and the network's draws change.
	MutateSeed
	mutationCount
)

var mutationNames = [mutationCount]string{"replace", "nudge", "extreme", "insert", "delete", "copy", "splice", "truncate", "seed"}

// String is the mutation's name, as the summary counts them.
func (m Mutation) String() string { return mutationNames[m] }

// maxStack is the most mutations stacked on one child (AFL's havoc stacks several).
const maxStack = 4

// mutate returns a child of parent made by one to maxStack mutations drawn from r, and the
// mutations applied. other is a second corpus entry for splicing (nil: no splice). The
// parent is not changed.
func mutate(r *rand.Rand, parent Input, other *Input) (Input, []Mutation) {
	child := Input{Genome: slices.Clone(parent.Genome), Seed: parent.Seed}
	var applied []Mutation
	for range 1 + r.IntN(maxStack) {
		m := Mutation(r.IntN(int(mutationCount)))
		if m == MutateSplice && other == nil {
			m = MutateReplace
		}
		child = mutateOnce(r, child, m, other)
		applied = append(applied, m)
	}
	return child, applied
}

// mutateOnce applies m to in, whose genome it may change in place.
func mutateOnce(r *rand.Rand, in Input, m Mutation, other *Input) Input {
	g := in.Genome
	if len(g) == 0 && m != MutateInsert && m != MutateSeed && m != MutateSplice {
		m = MutateInsert // nothing to change yet: grow it
	}
	switch m {
	case MutateReplace:
		g[r.IntN(len(g))] = r.Uint64()
	case MutateNudge:
		i := r.IntN(len(g))
		step := uint64(1) << (63 - r.IntN(16)) // the top 16 bits: choices of up to 65536 options
		if r.IntN(2) == 0 {
			g[i] += step
		} else {
			g[i] -= step
		}
	case MutateExtreme:
		g[r.IntN(len(g))] = [2]uint64{0, ^uint64(0)}[r.IntN(2)]
	case MutateInsert:
		g = slices.Insert(g, r.IntN(len(g)+1), r.Uint64())
	case MutateDelete:
		i := r.IntN(len(g))
		g = slices.Delete(g, i, i+1)
	case MutateCopy:
		from, to := r.IntN(len(g)), r.IntN(len(g))
		n := 1 + r.IntN(min(8, len(g)-max(from, to)))
		copy(g[to:to+n], g[from:from+n])
	case MutateSplice:
		cut := r.IntN(len(g) + 1)
		rest := other.Genome[min(cut, len(other.Genome)):]
		g = append(g[:cut:cut], rest...)
	case MutateTruncate:
		g = g[:r.IntN(len(g))]
	case MutateSeed:
		in.Seed = r.Uint64()
	}
	in.Genome = g
	return in
}
