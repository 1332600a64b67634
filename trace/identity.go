package trace

import "unsafe"

// The Recorder sees the same strings over and over: the engine names kinds with constants,
// tasks and attribute keys with strings from its plan. keyMemo remembers what was found out
// about attribute keys (valid, greater than the one before) so that it is not found out
// again for every event.
//
// The memo knows strings by identity: the same bytes in memory, of the same length. That is
// why it reads data pointers, and why a hit is decided by two word comparisons with no
// call. It is sound because the memo holds the strings it remembers, so their bytes stay where
// they are and, strings being immutable, stay what they were: the same string is the same
// text. A string with the same text at another address is simply examined again. What a
// line holds never depends on the memo, only the time it takes to write it.

// sameString reports whether a and b are the same bytes in memory, and so equal. (They may
// be equal without being the same.)
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// addressSlot picks one of 1<<bits memo slots for s from its address and length. Strings
// allocated one after another (an engine's keys, built together) lie 16 bytes or so apart and
// land in neighbouring slots; string constants lie a few bytes apart, and their lengths tell
// most of them apart.
func addressSlot(s string, bits uint) uint {
	p := uint(uintptr(unsafe.Pointer(unsafe.StringData(s))))
	return (p>>4 ^ p>>(4+bits) ^ uint(len(s))) & (1<<bits - 1)
}
