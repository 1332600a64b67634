package explore

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func testRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// TestMutateOnceDoesWhatItsNameSays checks each mutation's effect on a genome of distinct
// values.
func TestMutateOnceDoesWhatItsNameSays(t *testing.T) {
	parent := Input{Genome: Genome{10, 20, 30, 40, 50, 60}, Seed: 7}
	other := Input{Genome: Genome{1, 2, 3, 4, 5, 6, 7, 8}, Seed: 9}
	for seed := range uint64(50) {
		for m := range mutationCount {
			in := Input{Genome: slices.Clone(parent.Genome), Seed: parent.Seed}
			got := mutateOnce(testRand(seed), in, m, &other)
			checkMutation(t, m, parent, other, got)
		}
	}
}

func checkMutation(t *testing.T, m Mutation, parent, other, got Input) {
	t.Helper()
	n, g := len(parent.Genome), got.Genome
	switch m {
	case MutateInsert:
		if len(g) != n+1 {
			t.Errorf("insert: %d values, want %d", len(g), n+1)
		}
	case MutateDelete:
		if len(g) != n-1 {
			t.Errorf("delete: %d values, want %d", len(g), n-1)
		}
	case MutateTruncate:
		if len(g) >= n || !slices.Equal(g, parent.Genome[:len(g)]) {
			t.Errorf("truncate: %v is not a shorter prefix of %v", g, parent.Genome)
		}
	case MutateSplice:
		cut := slices.IndexFunc(g, func(v uint64) bool { return v < 10 })
		if cut >= 0 && !slices.Equal(g[cut:], other.Genome[cut:]) {
			t.Errorf("splice: %v does not end with other's values from %d", g, cut)
		}
	case MutateSeed:
		if got.Seed == parent.Seed || !slices.Equal(g, parent.Genome) {
			t.Errorf("seed: %+v, want the genome kept and the seed changed", got)
		}
	default:
		if len(g) != n {
			t.Errorf("%s: %d values, want %d", m, len(g), n)
		}
	}
	if m != MutateSeed && got.Seed != parent.Seed {
		t.Errorf("%s changed the seed", m)
	}
}

// TestMutateLeavesParentAlone: a corpus entry is mutated many times; no child may change it.
func TestMutateLeavesParentAlone(t *testing.T) {
	parent := Input{Genome: Genome{10, 20, 30, 40}, Seed: 7}
	other := Input{Genome: Genome{1, 2, 3}}
	r := testRand(1)
	changed := 0
	for range 200 {
		child, applied := mutate(r, parent, &other)
		if len(applied) < 1 || len(applied) > maxStack {
			t.Fatalf("%d mutations stacked, want 1 to %d", len(applied), maxStack)
		}
		if !slices.Equal(child.Genome, parent.Genome) || child.Seed != parent.Seed {
			changed++
		}
	}
	if !slices.Equal(parent.Genome, Genome{10, 20, 30, 40}) {
		t.Errorf("the parent changed to %v", parent.Genome)
	}
	if changed < 150 {
		t.Errorf("only %d of 200 children differ from their parent", changed)
	}
}

// TestMutateIsDeterministic: the same stream mutates the same way.
func TestMutateIsDeterministic(t *testing.T) {
	parent := Input{Genome: Genome{10, 20, 30, 40}, Seed: 7}
	a, am := mutate(testRand(3), parent, &parent)
	b, bm := mutate(testRand(3), parent, &parent)
	if !slices.Equal(a.Genome, b.Genome) || a.Seed != b.Seed || !slices.Equal(am, bm) {
		t.Errorf("two mutations on one stream differ: %v %v and %v %v", a, am, b, bm)
	}
}

// TestMutateGrowsAnEmptyGenome: an empty genome has no value to change, so it grows.
func TestMutateGrowsAnEmptyGenome(t *testing.T) {
	got := mutateOnce(testRand(1), Input{}, MutateNudge, nil)
	if len(got.Genome) != 1 {
		t.Errorf("a nudge of an empty genome gave %v, want one value inserted", got.Genome)
	}
}
