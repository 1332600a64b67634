package explore

import (
	"slices"
	"testing"
)

// TestCorpusKeepsOnlyNewFeatures: an input is kept when it reaches something no run did.
func TestCorpusKeepsOnlyNewFeatures(t *testing.T) {
	c := NewCorpus()
	if fresh := c.Add(0, Input{Seed: 1}, []string{"a", "b"}); !slices.Equal(fresh, []string{"a", "b"}) {
		t.Errorf("first run's new features = %v", fresh)
	}
	if fresh := c.Add(1, Input{Seed: 2}, []string{"a"}); fresh != nil {
		t.Errorf("a run of known features found %v new", fresh)
	}
	if fresh := c.Add(2, Input{Seed: 3}, []string{"a", "c"}); !slices.Equal(fresh, []string{"c"}) {
		t.Errorf("third run's new features = %v, want [c]", fresh)
	}
	if len(c.Entries) != 2 || c.Entries[1].Run != 2 {
		t.Errorf("corpus holds %d entries, want runs 0 and 2", len(c.Entries))
	}
	if c.Hits["a"] != 3 || c.Hits["c"] != 1 {
		t.Errorf("hits = %v", c.Hits)
	}
}

// TestCorpusFavoursRareFeatures: the entry that alone reached a rare feature is chosen
// more often than one that reached only what every run reaches, and choosing lowers energy.
func TestCorpusFavoursRareFeatures(t *testing.T) {
	c := NewCorpus()
	c.Add(0, Input{Seed: 1}, []string{"common"})
	for i := range 20 {
		c.Add(i+1, Input{Seed: uint64(i + 2)}, []string{"common"})
	}
	c.Add(21, Input{Seed: 99}, []string{"common", "rare"})
	common, rare := c.Entries[0], c.Entries[1]
	if c.Energy(rare) <= c.Energy(common) {
		t.Fatalf("energy rare %d <= common %d", c.Energy(rare), c.Energy(common))
	}
	before := c.Energy(rare)
	r := testRand(1)
	counts := map[uint64]int{}
	for range 100 {
		counts[c.Choose(r).Seed]++
	}
	if counts[99] <= counts[1] {
		t.Errorf("chosen: rare %d times, common %d times", counts[99], counts[1])
	}
	if c.Energy(rare) >= before {
		t.Errorf("energy %d after %d choices, not below %d", c.Energy(rare), rare.Chosen, before)
	}
}

func TestCorpusChoosesNothingWhenEmpty(t *testing.T) {
	if e := NewCorpus().Choose(testRand(1)); e != nil {
		t.Errorf("an empty corpus chose %v", e)
	}
}

func TestCorpusRarest(t *testing.T) {
	c := NewCorpus()
	c.Add(0, Input{}, []string{"b", "a", "c"})
	c.Add(1, Input{}, []string{"c"})
	if got, want := c.Rarest(2), []string{"a 1", "b 1"}; !slices.Equal(got, want) {
		t.Errorf("Rarest(2) = %v, want %v", got, want)
	}
}
