package trace

import (
	"encoding/binary"
	"math/bits"
)

// xxh64 is XXH64 with seed 0, the trace hash of version 2 (binary.go), written here so that
// package trace keeps to the standard library like package protocol: an engine that embeds
// them takes on no other module. The algorithm is Yann Collet's, as specified in
// xxhash_spec.md of github.com/Cyan4973/xxHash; xxh64_test.go checks it against the
// reference implementation's published values. It is streaming: Write may be called with
// any split of the input, and Sum64 does not change the state.
type xxh64 struct {
	v     [4]uint64 // the four lanes' accumulators
	total uint64    // bytes written so far
	buf   [32]byte  // input not yet consumed by a full stripe
	n     int       // bytes held in buf
}

const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

func newXXH64() *xxh64 {
	h := &xxh64{}
	h.reset()
	return h
}

func (h *xxh64) reset() {
	p1, p2 := prime1, prime2 // variables: the sums below wrap, which constants may not
	h.v = [4]uint64{p1 + p2, p2, 0, 0 - p1}
	h.total, h.n = 0, 0
}

func round(acc, input uint64) uint64 {
	return bits.RotateLeft64(acc+input*prime2, 31) * prime1
}

func mergeRound(acc, v uint64) uint64 {
	return (acc^round(0, v))*prime1 + prime4
}

// stripes consumes whole 32-byte stripes of p and returns what is left.
func (h *xxh64) stripes(p []byte) []byte {
	v0, v1, v2, v3 := h.v[0], h.v[1], h.v[2], h.v[3]
	for ; len(p) >= 32; p = p[32:] {
		v0 = round(v0, binary.LittleEndian.Uint64(p[0:8]))
		v1 = round(v1, binary.LittleEndian.Uint64(p[8:16]))
		v2 = round(v2, binary.LittleEndian.Uint64(p[16:24]))
		v3 = round(v3, binary.LittleEndian.Uint64(p[24:32]))
	}
	h.v = [4]uint64{v0, v1, v2, v3}
	return p
}

// Write adds p to the input. It never fails.
func (h *xxh64) Write(p []byte) (int, error) {
	n := len(p)
	h.total += uint64(n)
	if h.n > 0 {
		c := copy(h.buf[h.n:], p)
		h.n += c
		p = p[c:]
		if h.n < 32 {
			return n, nil
		}
		h.stripes(h.buf[:])
		h.n = 0
	}
	p = h.stripes(p)
	h.n = copy(h.buf[:], p)
	return n, nil
}

// Sum64 returns the hash of everything written so far.
func (h *xxh64) Sum64() uint64 {
	var acc uint64
	if h.total >= 32 {
		v0, v1, v2, v3 := h.v[0], h.v[1], h.v[2], h.v[3]
		acc = bits.RotateLeft64(v0, 1) + bits.RotateLeft64(v1, 7) + bits.RotateLeft64(v2, 12) + bits.RotateLeft64(v3, 18)
		acc = mergeRound(acc, v0)
		acc = mergeRound(acc, v1)
		acc = mergeRound(acc, v2)
		acc = mergeRound(acc, v3)
	} else {
		acc = prime5 // seed 0
	}
	acc += h.total
	p := h.buf[:h.n]
	for ; len(p) >= 8; p = p[8:] {
		acc ^= round(0, binary.LittleEndian.Uint64(p))
		acc = bits.RotateLeft64(acc, 27)*prime1 + prime4
	}
	if len(p) >= 4 {
		acc ^= uint64(binary.LittleEndian.Uint32(p)) * prime1
		acc = bits.RotateLeft64(acc, 23)*prime2 + prime3
		p = p[4:]
	}
	for _, b := range p {
		acc ^= uint64(b) * prime5
		acc = bits.RotateLeft64(acc, 11) * prime1
	}
	acc ^= acc >> 33
	acc *= prime2
	acc ^= acc >> 29
	acc *= prime3
	acc ^= acc >> 32
	return acc
}

// XXH64 returns the XXH64 (seed 0) of p: the hash of trace version 2, for emitters that
// digest bytes of their own (package engine digests each snapshot's state with it).
func XXH64(p []byte) uint64 { return xxh64Sum(p) }

// xxh64Sum returns the XXH64 (seed 0) of p.
func xxh64Sum(p []byte) uint64 {
	var h xxh64
	h.reset()
	h.Write(p)
	return h.Sum64()
}
