package mutate

import (
	"fmt"
	"slices"
	"testing"
)

// sites makes mutants spread over files: count[i] of them in file i.
func sites(counts ...int) []*Mutant {
	var out []*Mutant
	for f, n := range counts {
		for i := range n {
			file := fmt.Sprintf("p/f%d.go", f)
			out = append(out, &Mutant{ID: fmt.Sprintf("%s:%d:1:delete", file, i+1), File: file})
		}
	}
	return out
}

func ids(mutants []*Mutant) []string {
	var out []string
	for _, m := range mutants {
		out = append(out, m.ID)
	}
	return out
}

func TestOrderIsDeterministic(t *testing.T) {
	all := sites(30, 5, 12, 1)
	first, again := ids(Order(all, 7)), ids(Order(all, 7))
	if !slices.Equal(first, again) {
		t.Fatal("the same seed drew two orders")
	}
	if slices.Equal(first, ids(Order(all, 8))) {
		t.Error("seeds 7 and 8 drew the same order")
	}
	if got := ids(Order(all, 7)); len(got) != len(all) {
		t.Errorf("the order holds %d mutants of %d", len(got), len(all))
	}
}

func TestOrderIsAPermutation(t *testing.T) {
	all := sites(9, 4, 4)
	got := ids(Order(all, 1))
	want := ids(all)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the order is not a permutation of the mutants")
	}
}

// TestOrderSpreadsOverFiles: any prefix of the order holds about each file's share, so
// that a small sample is not all from the file enumerated first. Systematic sampling
// keeps a file within one mutant of its share of the prefix's stretch of the order, and
// the prefix's stretch is off the prefix's length by at most one mutant per file.
func TestOrderSpreadsOverFiles(t *testing.T) {
	counts := []int{40, 20, 10, 10, 1}
	total := 81
	for seed := range uint64(20) {
		order := Order(sites(counts...), seed)
		for n := 1; n <= total; n++ {
			per := map[string]int{}
			for _, m := range order[:n] {
				per[m.File]++
			}
			for f, c := range counts {
				share := float64(n*c) / float64(total)
				slack := 1 + float64(len(counts)*c)/float64(total)
				got := per[fmt.Sprintf("p/f%d.go", f)]
				if float64(got) < share-slack || float64(got) > share+slack {
					t.Fatalf("seed %d, first %d: file %d has %d, its share is %.1f", seed, n, f, got, share)
				}
			}
		}
	}
}
