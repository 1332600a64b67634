package trace

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// checkKeysPlainly is what keyLists.check must agree with: every key checked, every pair
// compared, nothing remembered.
func checkKeysPlainly(attrs []Attr) (valid, increasing bool) {
	increasing = true
	for i, a := range attrs {
		if !attrKeyAllowed(a.Key) {
			return false, false
		}
		if i > 0 && a.Key <= attrs[i-1].Key {
			increasing = false
		}
	}
	return true, increasing
}

// memoCheck runs m.check, turning its panic into valid == false.
func memoCheck(m *keyLists, attrs []Attr) (valid, increasing bool) {
	defer func() {
		if r := recover(); r != nil {
			if !strings.Contains(fmt.Sprint(r), "invalid attribute key") {
				panic(r)
			}
			valid, increasing = false, false
		}
	}()
	return true, m.check(&Event{Kind: "x", Attrs: attrs})
}

// One memo sees many attribute lists drawn from a small pool of keys (valid, invalid, fixed,
// the empty key), in and out of order, with repeats, some as copies that share no bytes with
// the pooled strings: its verdict on each list is the plain one, whatever it remembers.
func TestKeyListsAgreeWithPlainChecks(t *testing.T) {
	pool := []string{"a", "b", "chan.src-0", "chan.src-1", "chan.src-10", "recv.src-0", "sent.sum-0",
		"state", "tokens", "seq", "cp", "", "with space", "é", "x\x7f", "records", "start"}
	rapid.Check(t, func(t *rapid.T) {
		m := new(keyLists)
		for i, n := 0, rapid.IntRange(1, 40).Draw(t, "lists"); i < n; i++ {
			keys := rapid.SliceOfN(rapid.SampledFrom(pool), 0, 8).Draw(t, "keys")
			attrs := make([]Attr, len(keys))
			for j, k := range keys {
				if rapid.Bool().Draw(t, "copy") {
					k = strings.Clone(k)
				}
				attrs[j] = Attr{Key: k, Value: "v"}
			}
			gotValid, gotIncreasing := memoCheck(m, attrs)
			wantValid, wantIncreasing := checkKeysPlainly(attrs)
			if gotValid != wantValid || gotIncreasing != wantIncreasing {
				t.Fatalf("keys %q: memo says valid %v increasing %v, plain checks %v %v",
					keys, gotValid, gotIncreasing, wantValid, wantIncreasing)
			}
		}
	})
}

// Lists that pick the same pair of slots take turns in it, each reusing the array of the one
// it pushes out, without confusing the verdicts.
func TestKeyListsSlotCollisions(t *testing.T) {
	byPair := map[uint][]string{}
	for i := range 4000 {
		k := fmt.Sprintf("k.%d", i)
		pair := keysSlot([]Attr{{k, "v"}}) &^ 1
		byPair[pair] = append(byPair[pair], k)
	}
	m := new(keyLists)
	for _, keys := range byPair {
		if len(keys) < 3 {
			continue
		}
		a, b, c := keys[0], keys[1], keys[2]
		lists := [][]Attr{{{a, "1"}}, {{b, "1"}, {a, "2"}}, {{c, "1"}}, {{a, "1"}, {b, "2"}, {c, "3"}},
			{{c, "1"}, {a, "2"}}, {{b, "1"}}, {{a, "1"}, {"z", "2"}}, {{a, "1"}, {"", "2"}}}
		for range 3 {
			for _, attrs := range lists {
				gotValid, gotIncreasing := memoCheck(m, attrs)
				wantValid, wantIncreasing := checkKeysPlainly(attrs)
				if gotValid != wantValid || gotIncreasing != wantIncreasing {
					t.Fatalf("%v: memo %v %v, plain %v %v", attrs, gotValid, gotIncreasing, wantValid, wantIncreasing)
				}
			}
		}
		return
	}
	t.Fatal("no pair of slots holds three of 4000 keys; is keysSlot spreading them at all?")
}

// The memo keeps its own copy of a list: an emitter that reuses its attribute slice with
// other keys is checked afresh.
func TestKeyListsCopyTheKeys(t *testing.T) {
	m := new(keyLists)
	attrs := []Attr{{"a", "1"}, {"b", "2"}}
	if valid, increasing := memoCheck(m, attrs); !valid || !increasing {
		t.Fatalf("valid %v increasing %v", valid, increasing)
	}
	attrs[1].Key = "with space"
	if valid, _ := memoCheck(m, attrs); valid {
		t.Fatal("a key changed in the remembered slice was not checked")
	}
	attrs[1].Key = "0"
	if valid, increasing := memoCheck(m, attrs); !valid || increasing {
		t.Fatalf("keys a, 0: valid %v increasing %v", valid, increasing)
	}
}

// Once the Recorder knows an emitter's key lists, recording allocates nothing: not for the
// check, not for the line.
func TestEmitAllocatesNothingForKnownKeyLists(t *testing.T) {
	r := NewRecorder(nil, Header{})
	snapshot, writes := snapshotTakenEvent(), sinkWritesEvent(12)
	r.Emit(0, snapshot)
	r.Emit(0, writes)
	allocs := testing.AllocsPerRun(1000, func() {
		r.Emit(1, snapshot)
		r.Emit(1, writes)
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per pair of events", allocs)
	}
}
