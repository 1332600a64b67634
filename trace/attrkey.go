package trace

import "fmt"

// Checking attribute keys is a large part of recording a snapshot.taken, which carries a
// counter per channel: each key must be valid and greater than the one before it. Emitters
// pass the same key strings in the same order event after event (the engine takes them from
// its plan), so the Recorder remembers, per key string, that it is valid and which key string
// it last followed. A key met again after the same key costs two comparisons of string
// headers, with no call, where checking it costs a pass over its bytes and a string
// comparison. The memo knows strings by identity (see identity.go): a key with the same text
// at another address is simply checked again.

// keyMemoBits sets how many keys a keyMemo holds, 1<<keyMemoBits: a few times the keys of a
// wide topology's snapshots, so that few of them share a slot.
const keyMemoBits = 8

// keyMemo remembers attribute keys found valid, each with the key it followed. A key may sit
// in either slot of the pair its address picks, so that two keys picking the same pair do
// not keep pushing each other out.
type keyMemo [1 << keyMemoBits]keyMemory

type keyMemory struct {
	key    string // a valid attribute key
	before string // a key less than key, which came just before it; "" for the first
}

// check panics if an attribute key of e is invalid, and reports whether the keys are
// strictly increasing. If they are not they may repeat, which the caller must check.
func (m *keyMemo) check(e *Event) (increasing bool) {
	increasing = true
	before := ""
	for _, a := range e.Attrs {
		pair := m[addressSlot(a.Key, keyMemoBits)&^1:][:2]
		known := a.Key != "" && (pair[0].is(a.Key, before) || pair[1].is(a.Key, before))
		if !known {
			if !attrKeyAllowed(a.Key) {
				panic(fmt.Sprintf("trace: invalid attribute key %q on %s", a.Key, e.Kind))
			}
			if a.Key > before {
				// The newer memory goes first; the older one stays as the second.
				pair[1] = pair[0]
				pair[0] = keyMemory{a.Key, before}
			} else {
				increasing = false
			}
		}
		before = a.Key
	}
	return increasing
}

// is reports whether this memory is of key after before.
func (k *keyMemory) is(key, before string) bool {
	return sameString(k.key, key) && sameString(k.before, before)
}

// attrKeyAllowed is validAttrKey for the emitting path, where it runs for every attribute of
// every event: the same rule checked eight bytes at a time, with the fixed keys looked up
// only for keys short enough to be one.
func attrKeyAllowed(key string) bool {
	if key == "" || !keyString(key) {
		return false
	}
	return len(key) > maxFixedKeyLen || !isFixedKey(key)
}

// keyString reports whether every byte of s may appear in an attribute key: printable ASCII
// other than the space, the quote and the backslash. It must be exact both ways: a key it
// wrongly refused would stop the run.
func keyString(s string) bool {
	if len(s) < 8 {
		return keyWord(shortWord(s))
	}
	for i := 0; i < len(s)-8; i += 8 {
		if !keyWord(word(s[i:])) {
			return false
		}
	}
	return keyWord(word(s[len(s)-8:]))
}

// keyWord reports whether every byte of x may appear in an attribute key: none is below 0x21,
// a quote, a backslash, DEL (0x7f) or above it (a byte of a multi-byte rune; validAttrKey
// rejects those too). As in plainWord, (b - k) & ^b & 0x80 is set for some byte b < k, and
// b ^ v is zero for some byte b == v, exactly when there is such a byte: a borrow only runs
// on from a byte that is itself flagged.
func keyWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b, del := x^'"'*ones, x^'\\'*ones, x^0x7f*ones
	return ((x-0x21*ones)&^x|(q-ones)&^q|(b-ones)&^b|(del-ones)&^del|x)&highs == 0
}

// maxFixedKeyLen is the length of the longest fixed key.
var maxFixedKeyLen = func() int {
	n := 0
	for _, k := range fixedKeys {
		n = max(n, len(k))
	}
	return n
}()
