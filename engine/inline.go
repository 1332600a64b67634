package engine

import "strings"

// Small state travels inline. A snapshot whose encoded state is at most
// Config.InlineStateBytes is not written to storage by its task: its bytes become its
// handle, go to the coordinator in the acknowledgement, and are made durable with the
// checkpoint's metadata, as Flink keeps state under state.storage.fs.memory-threshold
// (20 KiB) in the _metadata file. A checkpoint of many small tasks then costs one durable
// write, not one per task, and the state is exactly as durable as the checkpoint that
// names it: a restore reads it from the metadata it has already read.

// inlinePrefix starts every inline handle, which is the prefix followed by the state's
// bytes. A storage key never starts with it (state keys start with "state/").
const inlinePrefix = "inline:"

// MaxInlineStateBytes bounds Config.InlineStateBytes: an inline handle is a string of the
// checkpoint's metadata, which holds none longer than maxStateString.
const MaxInlineStateBytes = maxStateString - len(inlinePrefix)

// inlinable reports whether state of size bytes goes inline under threshold.
func inlinable(size, threshold int) bool { return size <= min(threshold, MaxInlineStateBytes) }

// inlineState returns the state an inline handle holds, and false for a storage key.
func inlineState(handle string) ([]byte, bool) {
	s, ok := strings.CutPrefix(handle, inlinePrefix)
	if !ok {
		return nil, false
	}
	return []byte(s), true
}

// isInline reports whether a handle holds its state inline.
func isInline(handle string) bool { return strings.HasPrefix(handle, inlinePrefix) }

// handleName renders a handle for messages: inline state is named, not printed.
func handleName(handle string) string {
	if isInline(handle) {
		return "inline state"
	}
	return handle
}
