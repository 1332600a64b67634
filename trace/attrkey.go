package trace

import "fmt"

// Checking attribute keys is a large part of recording a snapshot.taken, which carries a
// counter per channel: each key must be valid and greater than the one before it. Emitters
// pass the same list of key strings event after event (the engine takes a task's snapshot
// keys from its plan, a sink.writes' from constants), so the Recorder remembers lists it has
// checked. A list met again costs a comparison of string headers per key, with no call,
// where checking it costs a pass over every key's bytes and a string comparison per key.
// The memo knows strings by identity (see identity.go): a list whose keys have the same text
// at other addresses is simply checked again.

// keyListBits sets how many lists a keyLists holds, 1<<keyListBits: a few times the task
// count of a wide topology (each task has its own snapshot keys), so that few lists compete
// for a pair of slots.
const keyListBits = 8

// keyLists remembers lists of attribute keys found valid and strictly increasing, by the
// addresses of their keys. A list may sit in either slot of the pair those pick, so that two
// lists picking the same pair do not keep pushing each other out.
type keyLists [1 << keyListBits][]string

// check panics if an attribute key of e is invalid, and reports whether the keys are
// strictly increasing. If they are not they may repeat, which the caller must check.
func (m *keyLists) check(e *Event) (increasing bool) {
	attrs := e.Attrs
	if len(attrs) == 0 {
		return true
	}
	pair := m[keysSlot(attrs)&^1:][:2]
	if sameKeys(pair[0], attrs) || sameKeys(pair[1], attrs) {
		return true
	}
	increasing = true
	for i, a := range attrs {
		if !attrKeyAllowed(a.Key) {
			panic(fmt.Sprintf("trace: invalid attribute key %q on %s", a.Key, e.Kind))
		}
		if i > 0 && a.Key <= attrs[i-1].Key {
			increasing = false
		}
	}
	if increasing {
		// The new list goes first, the older one second; the list pushed out lends its
		// array, so that lists taking turns in a pair allocate nothing after the first.
		keys := pair[1][:0]
		if cap(keys) < len(attrs) {
			keys = make([]string, 0, len(attrs))
		}
		for _, a := range attrs {
			keys = append(keys, a.Key)
		}
		pair[1] = pair[0]
		pair[0] = keys
	}
	return increasing
}

// keysSlot picks a slot for a list of keys from all their addresses, mixed by multiplying:
// lists that share some key strings (a first key, say, if an emitter used one string for
// every task's) still spread.
func keysSlot(attrs []Attr) uint {
	var h uint64
	for _, a := range attrs {
		h = (h ^ uint64(address(a.Key))) * 0x9e3779b97f4a7c15
	}
	return uint(h >> (64 - keyListBits))
}

// sameKeys reports whether attrs has exactly the key strings of keys, in order.
func sameKeys(keys []string, attrs []Attr) bool {
	if len(keys) != len(attrs) {
		return false
	}
	for i := range keys {
		if !sameString(keys[i], attrs[i].Key) {
			return false
		}
	}
	return true
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
