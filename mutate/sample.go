package mutate

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// sampleStream tells the sampler's stream apart from any other use of the same seed.
const sampleStream = 0x6d7574616e7473 // "mutants"

// offsetScale is the resolution of a file's random offset within its stride.
const offsetScale = 1 << 20

// Order returns all of mutants in the order a sample of seed draws them: a sample of n is
// the first n, and the runner takes more from the same order when one fails to compile.
// Each file's mutants are shuffled and then laid at even strides over the order, each file
// at its own random offset, so that any prefix holds every file's share in proportion to its
// mutants (systematic sampling per file). Integer keys keep it the same on every platform.
func Order(mutants []*Mutant, seed uint64) []*Mutant {
	rng := rand.New(rand.NewPCG(seed, sampleStream))
	byFile := map[string][]*Mutant{}
	var files []string
	for _, m := range mutants {
		if _, ok := byFile[m.File]; !ok {
			files = append(files, m.File)
		}
		byFile[m.File] = append(byFile[m.File], m)
	}
	slices.Sort(files)
	type keyed struct {
		m         *Mutant
		num, den  int64 // the place in the order is num/den
		fileOrder int
	}
	var all []keyed
	for i, file := range files {
		group := slices.Clone(byFile[file])
		rng.Shuffle(len(group), func(a, b int) { group[a], group[b] = group[b], group[a] })
		offset := rng.Int64N(offsetScale)
		for rank, m := range group {
			all = append(all, keyed{m: m, num: int64(rank)*offsetScale + offset, den: int64(len(group)), fileOrder: i})
		}
	}
	slices.SortFunc(all, func(x, y keyed) int {
		return cmp.Or(cmp.Compare(x.num*y.den, y.num*x.den), cmp.Compare(x.fileOrder, y.fileOrder))
	})
	out := make([]*Mutant, len(all))
	for i, k := range all {
		out[i] = k.m
	}
	return out
}
