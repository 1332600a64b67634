package sim

import (
	"fmt"
	"math"
	"time"
)

// IntBetween returns a uniform int64 in [lo, hi], both ends included.
func (r *Rand) IntBetween(lo, hi int64) int64 {
	if lo > hi {
		panic(fmt.Sprintf("sim: IntBetween(%d, %d) with lo > hi", lo, hi))
	}
	span := uint64(hi - lo) // the number of values minus one; no overflow in two's complement
	if span == math.MaxUint64 {
		return int64(r.src.Uint64())
	}
	return lo + int64(r.uint64n(span+1))
}

// DurationBetween returns a uniform duration in [lo, hi], both ends included.
func (r *Rand) DurationBetween(lo, hi time.Duration) time.Duration {
	return time.Duration(r.IntBetween(int64(lo), int64(hi)))
}

// Bernoulli returns true with probability p (clamped to [0, 1]).
func (r *Rand) Bernoulli(p float64) bool {
	if p <= 0 {
		return false
	}
	return r.Float64() < p
}

// Exponential returns an exponentially distributed duration with the given mean, rounded to
// whole nanoseconds. The largest value it can return is about 37 times the mean, because the
// uniform draw it transforms is never below 2^-53.
func (r *Rand) Exponential(mean time.Duration) time.Duration {
	if mean < 0 {
		panic(fmt.Sprintf("sim: Exponential with negative mean %v", mean))
	}
	u := 1 - r.Float64() // in (0, 1], so the logarithm is finite
	return durationOf(float64(-detLog(u) * float64(mean)))
}

// Pareto returns a duration from a Pareto distribution with shape alpha (> 0; smaller means a
// heavier tail) truncated to [lo, hi]: most draws are near lo and a few are far out towards
// hi. It models long-tail latencies (slow disks, GC pauses) without unbounded outliers.
func (r *Rand) Pareto(lo, hi time.Duration, alpha float64) time.Duration {
	if lo <= 0 || hi < lo || !(alpha > 0) {
		panic(fmt.Sprintf("sim: Pareto(%v, %v, %v) needs 0 < lo <= hi and alpha > 0", lo, hi, alpha))
	}
	if lo == hi {
		return lo
	}
	// Inverse of the truncated Pareto CDF: x = lo / (1 - u*(1 - (lo/hi)^alpha))^(1/alpha).
	u := r.Float64()
	ratio := detPow(float64(lo)/float64(hi), alpha)
	base := float64(1 - float64(u*float64(1-ratio)))
	x := float64(lo) / detPow(base, 1/alpha)
	return min(max(durationOf(x), lo), hi)
}

// Choice returns a uniform index in [0, n); n must be positive.
func (r *Rand) Choice(n int) int { return r.pcg.IntN(n) }

// WeightedChoice returns index i with probability weights[i]/sum(weights). Weights are
// integers so the choice is exact; zero weights are never chosen, negative ones panic, and at
// least one weight must be positive.
func (r *Rand) WeightedChoice(weights []uint64) int {
	var total uint64
	for _, w := range weights {
		if w > math.MaxUint64-total {
			panic("sim: WeightedChoice weights overflow")
		}
		total += w
	}
	if total == 0 {
		panic("sim: WeightedChoice needs a positive weight")
	}
	pick := r.uint64n(total)
	for i, w := range weights {
		if pick < w {
			return i
		}
		pick -= w
	}
	panic("sim: WeightedChoice fell off the end")
}

// Shuffle permutes n elements through swap, uniformly.
func (r *Rand) Shuffle(n int, swap func(i, j int)) { r.pcg.Shuffle(n, swap) }

// durationOf converts a non-negative float to nanoseconds, saturating instead of overflowing.
func durationOf(x float64) time.Duration {
	if !(x >= 0) {
		panic(fmt.Sprintf("sim: negative or NaN duration %v", x))
	}
	if x >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(x))
}
