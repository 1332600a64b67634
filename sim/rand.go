package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// Rand is one named, seeded random stream (PCG from math/rand/v2) with the distributions
// fault injection needs. Every draw goes through integer arithmetic or through the
// correctly-rounded float operations in detmath.go, so a stream yields the same values on
// every machine and architecture.
type Rand struct {
	name string
	pcg  *rand.Rand
	src  *rand.PCG // pcg's source, for the draws that skip the Source interface (uint64n)
}

// NewRand returns the stream called name of the run with the given seed. Its seed is a hash
// of (seed, name), so streams are independent of each other and of the order in which they
// are created: adding draws to one component never shifts another's. Code that has no kernel
// (a fault planner deciding a schedule before the run) uses this directly with its own names.
func NewRand(seed uint64, name string) *Rand {
	hi, lo := DeriveSeed(seed, name)
	src := rand.NewPCG(hi, lo)
	return &Rand{name: name, pcg: rand.New(src), src: src}
}

// DeriveSeed returns the two 64-bit words that seed the stream called name in the run with
// the given seed: the first 16 bytes of SHA-256(seed as 8 big-endian bytes, name).
func DeriveSeed(seed uint64, name string) (hi, lo uint64) {
	var head [8]byte
	binary.BigEndian.PutUint64(head[:], seed)
	h := sha256.New()
	h.Write(head[:])
	h.Write([]byte(name))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return binary.BigEndian.Uint64(sum[0:8]), binary.BigEndian.Uint64(sum[8:16])
}

// Stream returns the kernel's stream called name, creating it on first use. Asking again for
// the same name returns the same stream (a restarted host picks up where its stream was), so
// each component should use its own name, for example "link/a->b" or "faults/network".
func (k *Kernel) Stream(name string) *Rand {
	if r, ok := k.streams[name]; ok {
		return r
	}
	r := NewRand(k.config.Seed, name)
	k.streams[name] = r
	return r
}

// Name returns the stream's name.
func (r *Rand) Name() string { return r.name }

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.src.Uint64() }

// IntN returns a uniform int in [0, n); n must be positive.
func (r *Rand) IntN(n int) int { return r.pcg.IntN(n) }

// Float64 returns a uniform float64 in [0, 1), a multiple of 2^-53.
func (r *Rand) Float64() float64 { return r.pcg.Float64() }

// uint64n returns a uniform value in [0, n), n > 0: exactly what r.pcg.Uint64N(n) returns,
// leaving the generator in the same state, but drawing from the PCG directly rather than
// through rand.Rand's Source interface, which the compiler cannot inline. It is the draw of
// every DurationBetween (timer and link jitter), so this is a few percent of a busy run's
// events. It is math/rand/v2's Lemire reduction, copied; on 32-bit platforms, where the
// library takes another path for small n, it defers to the library.
// TestUint64NMatchesMathRand holds the two together.
func (r *Rand) uint64n(n uint64) uint64 {
	if bits.UintSize == 32 {
		return r.pcg.Uint64N(n)
	}
	if n&(n-1) == 0 { // a power of two: mask
		return r.src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), n)
		}
	}
	return hi
}
