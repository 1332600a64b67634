package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestStreamGolden pins the derivation (SHA-256 of seed and name into PCG) and the
// distributions to exact values: if this changes, every recorded trace hash changes with it,
// and on a machine where it differs runs do not replay.
func TestStreamGolden(t *testing.T) {
	r := NewRand(1, "golden")
	if got, want := []uint64{r.Uint64(), r.Uint64(), r.Uint64()}, []uint64{0xba586077b3863df6, 0xe93853c9dc98e09b, 0x8572ec7705cc464d}; !slices.Equal(got, want) {
		t.Fatalf("NewRand(1, \"golden\") yields %#x, want %#x", got, want)
	}
	r = NewRand(1, "golden")
	if a, b, c, d := r.IntBetween(-5, 5), r.DurationBetween(0, 1000), r.Exponential(1000), r.Pareto(10, 10000, 1.1); a != 3 || b != 911 || c != 895 || d != 12 {
		t.Fatalf("distributions yield %d %d %d %d, want 3 911 895 12", a, b, c, d)
	}
}

// TestStreamsAreIndependent: a stream's values depend only on the seed and its name, not on
// which other streams exist, in what order they were made, or how much they were drawn from.
func TestStreamsAreIndependent(t *testing.T) {
	draw := func(r *Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64(), r.Uint64()} }
	alone := draw(New(Config{Seed: 9}).Stream("link/a->b"))

	k := New(Config{Seed: 9})
	other := k.Stream("faults")
	for range 1000 {
		other.Uint64()
	}
	crowded := draw(k.Stream("link/a->b"))
	if !slices.Equal(alone, crowded) {
		t.Fatalf("stream changed with its neighbours: %#x vs %#x", alone, crowded)
	}
	if slices.Equal(alone, draw(New(Config{Seed: 10}).Stream("link/a->b"))) {
		t.Fatal("two seeds gave the same stream")
	}
	if slices.Equal(alone, draw(New(Config{Seed: 9}).Stream("link/b->a"))) {
		t.Fatal("two names gave the same stream")
	}
	if k.Stream("faults") != other {
		t.Fatal("asking twice for a stream made a second one")
	}
}

func TestDistributionsStayInRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := NewRand(rapid.Uint64().Draw(t, "seed"), "test")
		lo := rapid.Int64Range(-1e12, 1e12).Draw(t, "lo")
		hi := lo + rapid.Int64Range(0, 1e12).Draw(t, "span")
		if v := r.IntBetween(lo, hi); v < lo || v > hi {
			t.Fatalf("IntBetween(%d, %d) = %d", lo, hi, v)
		}
		if v := r.IntBetween(math.MinInt64, math.MaxInt64); v < math.MinInt64 {
			t.Fatal("full-range IntBetween")
		}
		dlo := time.Duration(rapid.Int64Range(1, 1e9).Draw(t, "duration lo"))
		dhi := dlo + time.Duration(rapid.Int64Range(0, 1e12).Draw(t, "duration span"))
		alpha := rapid.Float64Range(0.1, 5).Draw(t, "alpha")
		if v := r.Pareto(dlo, dhi, alpha); v < dlo || v > dhi {
			t.Fatalf("Pareto(%v, %v, %v) = %v", dlo, dhi, alpha, v)
		}
		if v := r.Exponential(dhi); v < 0 || v > 40*dhi {
			t.Fatalf("Exponential(%v) = %v", dhi, v)
		}
		weights := rapid.SliceOfN(rapid.Uint64Range(0, 5), 1, 6).Filter(func(w []uint64) bool {
			return slices.ContainsFunc(w, func(x uint64) bool { return x > 0 })
		}).Draw(t, "weights")
		if i := r.WeightedChoice(weights); weights[i] == 0 {
			t.Fatalf("WeightedChoice(%v) picked zero-weight %d", weights, i)
		}
		if r.Bernoulli(0) || !r.Bernoulli(1) {
			t.Fatal("Bernoulli(0) or Bernoulli(1) wrong")
		}
	})
}

// TestDistributionShapes checks the statistics of each distribution on a fixed seed, loosely
// enough that only a wrong formula fails.
func TestDistributionShapes(t *testing.T) {
	r := NewRand(3, "shapes")
	const n = 20000
	var sum float64
	for range n {
		sum += float64(r.Exponential(time.Millisecond))
	}
	if mean := sum / n; math.Abs(mean-1e6) > 0.05e6 {
		t.Errorf("Exponential(1ms) mean %.0fns", mean)
	}
	// Truncated Pareto with alpha 1 on [1, 1000]: P(X > x) is about (1/x - 1/1000)/(1 - 1/1000).
	over10 := 0
	for range n {
		if r.Pareto(1, 1000, 1) > 10 {
			over10++
		}
	}
	if frac := float64(over10) / n; math.Abs(frac-0.0991) > 0.01 {
		t.Errorf("Pareto(1, 1000, 1) exceeds 10 in %.3f of draws, want about 0.099", frac)
	}
	heads := 0
	for range n {
		if r.Bernoulli(0.3) {
			heads++
		}
	}
	if frac := float64(heads) / n; math.Abs(frac-0.3) > 0.02 {
		t.Errorf("Bernoulli(0.3) true in %.3f of draws", frac)
	}
	counts := make([]int, 3)
	for range n {
		counts[r.WeightedChoice([]uint64{1, 0, 3})]++
	}
	if counts[1] != 0 || math.Abs(float64(counts[2])/n-0.75) > 0.02 {
		t.Errorf("WeightedChoice(1, 0, 3) counts %v", counts)
	}
}

// TestDeterministicMathMatchesLibm checks the portable log and exp against the standard
// library (a reference that may differ in the last bits between machines, but not by more).
func TestDeterministicMathMatchesLibm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Float64Range(1e-300, 1e300).Draw(t, "x")
		if got, want := detLog(x), math.Log(x); math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
			t.Fatalf("detLog(%v) = %v, math.Log = %v", x, got, want)
		}
		y := rapid.Float64Range(-700, 700).Draw(t, "y")
		if got, want := detExp(y), math.Exp(y); math.Abs(got-want) > 1e-13*want {
			t.Fatalf("detExp(%v) = %v, math.Exp = %v", y, got, want)
		}
	})
}

// TestUint64NMatchesMathRand holds Rand.uint64n, math/rand/v2's reduction drawn from the PCG
// directly, to the library's own Uint64N: the same values from the same seed, and the same
// state after, so that no stream shifts. Bounds are drawn towards where the reduction
// branches: powers of two, small bounds, and bounds near 2^64 that reject often.
func TestUint64NMatchesMathRand(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		ours := NewRand(seed, "uint64n")
		hi, lo := DeriveSeed(seed, "uint64n")
		theirs := rand.New(rand.NewPCG(hi, lo))
		bounds := rapid.OneOf(
			rapid.Uint64Range(1, 1000),
			rapid.Custom(func(t *rapid.T) uint64 { return 1 << rapid.IntRange(0, 63).Draw(t, "power") }),
			rapid.Uint64Range(1<<63, ^uint64(0)),
			rapid.Uint64Min(1),
		)
		for range rapid.IntRange(1, 50).Draw(t, "draws") {
			n := bounds.Draw(t, "n")
			if got, want := ours.uint64n(n), theirs.Uint64N(n); got != want {
				t.Fatalf("uint64n(%d) = %d, math/rand/v2 says %d", n, got, want)
			}
		}
		if got, want := ours.Uint64(), theirs.Uint64(); got != want {
			t.Fatalf("the streams part after the draws: %d, %d", got, want)
		}
	})
}
