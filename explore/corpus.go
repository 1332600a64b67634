package explore

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Input is what one run of the exploration runs: the genome its scenario is drawn from and
// the seed the scenario runs on.
type Input struct {
	Genome Genome
	Seed   uint64
}

// key identifies an input, so that the exploration does not run one twice.
func (in Input) key() uint64 {
	return append(Genome{in.Seed}, in.Genome...).tailKey()
}

// Entry is an input the corpus kept: it reached a feature no earlier run had.
type Entry struct {
	Input
	// Run is the run that reached it, counted from 0.
	Run int
	// Features are everything the run reached, new or not: an entry's energy comes from
	// how rare they are now, not when it was kept.
	Features []string
	// Chosen counts the children drawn from it, which lowers its energy, so that a rare
	// entry that yields nothing new yields its turn in the end.
	Chosen int
}

// Corpus holds the kept inputs and how many runs reached each feature. It is the whole
// state of the guidance: the next input is drawn from it and the explorer's own stream.
type Corpus struct {
	Entries []*Entry
	// Hits counts, per feature, the runs that reached it.
	Hits map[string]int
}

// maxEntries bounds the corpus: past it, runs still count their features but no input is
// kept.
const maxEntries = 4096

// NewCorpus returns an empty corpus.
func NewCorpus() *Corpus { return &Corpus{Hits: map[string]int{}} }

// Add counts the features one run reached and keeps its input when one of them is new. It
// returns the new features, in the order given (sorted, as Observer.Features returns them).
func (c *Corpus) Add(run int, in Input, features []string) []string {
	var fresh []string
	for _, f := range features {
		if c.Hits[f] == 0 {
			fresh = append(fresh, f)
		}
		c.Hits[f]++
	}
	if len(fresh) > 0 && len(c.Entries) < maxEntries {
		c.Entries = append(c.Entries, &Entry{Input: in, Run: run, Features: features})
	}
	return fresh
}

// rarityScale is the energy of a feature only one run reached; one reached by n runs is
// worth rarityScale/n. Integers, so that the choice is the same on every platform.
const rarityScale = 1 << 20

// Energy is how often e is mutated relative to the others: the sum of its features'
// rarities (a feature reached by few runs is worth much, as in AFL's and libFuzzer's
// schedulers, which favour inputs that reach rare edges), lowered as it is chosen.
func (c *Corpus) Energy(e *Entry) uint64 {
	var sum uint64
	for _, f := range e.Features {
		sum += rarityScale / uint64(max(1, c.Hits[f]))
	}
	return max(1, sum*8/uint64(8+e.Chosen))
}

// Choose draws an entry with probability proportional to its energy, and counts the
// choice; nil when the corpus is empty.
func (c *Corpus) Choose(r *rand.Rand) *Entry {
	if len(c.Entries) == 0 {
		return nil
	}
	energies := make([]uint64, len(c.Entries))
	var total uint64
	for i, e := range c.Entries {
		energies[i] = c.Energy(e)
		total += energies[i]
	}
	x := r.Uint64N(total)
	for i, w := range energies {
		if x < w {
			c.Entries[i].Chosen++
			return c.Entries[i]
		}
		x -= w
	}
	panic("explore: a choice beyond the total energy")
}

// Rarest returns the n features the fewest runs reached, fewest first (ties by name), each
// as "feature count".
func (c *Corpus) Rarest(n int) []string {
	names := make([]string, 0, len(c.Hits))
	for f := range c.Hits {
		names = append(names, f)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.Hits[a], c.Hits[b]), cmp.Compare(a, b))
	})
	var out []string
	for _, f := range names[:min(n, len(names))] {
		out = append(out, f+" "+strconv.Itoa(c.Hits[f]))
	}
	return out
}
