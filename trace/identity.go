package trace

import "unsafe"

// The Recorder sees the same strings over and over: the engine names kinds with constants,
// tasks and attribute keys with strings from its plan. keyLists remembers what was found
// out about lists of attribute keys (valid, in increasing order) so that it is not found out
// again for every event.
//
// The memo knows strings by identity: the same bytes in memory, of the same length. That is
// why it reads data pointers, and why it recognises a key with two word comparisons and no
// call. It is sound because the memo holds the strings it remembers, so their bytes stay
// where they are and, strings being immutable, stay what they were: the same string is the
// same text. A string with the same text at another address is simply examined again. What
// a line holds never depends on the memo, only the time it takes to write it.

// sameString reports whether a and b are the same bytes in memory, and so equal. (They may
// be equal without being the same.)
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// address returns where the bytes of s are, mixed with its length.
func address(s string) uint {
	return uint(uintptr(unsafe.Pointer(unsafe.StringData(s)))) ^ uint(len(s))
}
