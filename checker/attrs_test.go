package checker

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestParseIntIsStrconv checks that parseInt reads every string as strconv.ParseInt(s, 10,
// 64) does, on the edges of its fast path and on random strings of digits, signs and others.
func TestParseIntIsStrconv(t *testing.T) {
	cases := []string{"", "0", "00", "7", "-0", "+0", "-7", "+7", "12a", "a", " 1", "1 ", "1_000",
		"999999999999999999", "9999999999999999999", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "000000000000000000001", "0x10", "١"}
	rng := rand.New(rand.NewPCG(1, 1))
	const alphabet = "0123456789+-_ a/:"
	for range 20000 {
		b := make([]byte, rng.IntN(22))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = '0' + byte(rng.IntN(10))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, err := strconv.ParseInt(s, 10, 64)
		// Callers read the value even when it is no integer (0, or the bound it overflows).
		if got, ok := parseInt(s); ok != (err == nil) || got != want {
			t.Fatalf("parseInt(%q) = %d, %v; strconv.ParseInt says %d, %v", s, got, ok, want, err)
		}
	}
}

// TestCutItemIsStringsCut checks that cutItem cuts a list as strings.Cut does at
// trace.ListSeparator, which it takes to be the one byte listSeparator.
func TestCutItemIsStringsCut(t *testing.T) {
	if trace.ListSeparator != string(listSeparator) {
		t.Fatalf("trace.ListSeparator is %q, cutItem cuts at %q", trace.ListSeparator, string(listSeparator))
	}
	for _, list := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "ab cd ef"} {
		item, rest := cutItem(list)
		wantItem, wantRest, _ := strings.Cut(list, trace.ListSeparator)
		if item != wantItem || rest != wantRest {
			t.Fatalf("cutItem(%q) = %q, %q; strings.Cut gives %q, %q", list, item, rest, wantItem, wantRest)
		}
	}
}
