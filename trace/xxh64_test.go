package trace

import "testing"

// TestXXH64 checks xxh64 against XXH64 values: the reference implementation's for the
// empty input, "a", "abc" and python-xxhash's example, and, for inputs of every shape the
// algorithm branches on (under 4, 8 and 32 bytes, whole and partial stripes), values of
// github.com/cespare/xxhash/v2 (whose Sum64 agreed with xxh64 on 300 random inputs of 0 to
// 299 bytes, whole and written in 7-byte pieces, when this file was written).
func TestXXH64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"Nobody inspects the spammish repetition", 0xfbcea83c8a378bf1},
	} {
		if got := xxh64Sum([]byte(c.in)); got != c.want {
			t.Errorf("XXH64(%q) = %016x, want %016x", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		n    int
		want uint64
	}{
		{1, 0x1f25c8d0bc1f4bb6}, {3, 0x31d2363f52e564c9}, {4, 0x9bb64b7d66ee9fda},
		{7, 0x9a7b149959ce60d8}, {8, 0xdab99d95c6f90092}, {15, 0x1b47cb8243cc8e32},
		{31, 0xa2aa5f33cc4a6119}, {32, 0x23c3c17ef790fd97}, {33, 0x50a7cfc7ba588784},
		{63, 0x5e3e54b431c7493c}, {64, 0x0eb64b3ef6eeb01f}, {100, 0xa61f8d4c170fe531},
		{1000, 0x5f235fa033f1a3fb},
	} {
		p := make([]byte, c.n)
		for i := range p {
			p[i] = byte(i*7 + 3)
		}
		if got := xxh64Sum(p); got != c.want {
			t.Errorf("XXH64 of %d bytes = %016x, want %016x", c.n, got, c.want)
		}
		for _, piece := range []int{1, 5, 31, 32, 33} {
			h := newXXH64()
			for i := 0; i < len(p); i += piece {
				h.Write(p[i:min(i+piece, len(p))])
			}
			if got := h.Sum64(); got != c.want {
				t.Errorf("XXH64 of %d bytes written %d at a time = %016x, want %016x", c.n, piece, got, c.want)
			}
		}
	}
}
