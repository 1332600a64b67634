package trace

import "strings"

// Version is the schema version written in every header. It changes only when a kind or a
// field is renamed or changes meaning; adding kinds and fields keeps it.
const Version = 1

// Event is one line of a trace. Seq and T are assigned by the Recorder; the emitter fills the
// rest. Which fields a kind uses is listed in schema.go.
type Event struct {
	Seq    uint64 // position in the trace, from 0
	T      int64  // virtual time in nanoseconds
	Kind   string
	Task   string // stable task id such as "sum-2", or "coordinator"
	From   string // sending task (barrier.recv, record.recv)
	To     string // receiving task (barrier.send, record.send)
	CP     uint64 // checkpoint id; 0 where none applies (task.restore: fresh start)
	Reason string // why a checkpoint or snapshot was aborted or declined
	Txn    string // sink transaction id
	RID    string // record id
	Fault  string // fault kind, on fault events
	Attrs  []Attr // further fields, written after the fixed ones in key order

	// PlainValues is the emitter's word that every attribute value is plain: printable
	// ASCII other than the quote and the backslash, which a JSON string holds as it is
	// (numbers, hex digests, lists of record ids made of validated names, joined by
	// spaces). The Recorder then copies the values into the line without looking at each
	// byte, which is most of the cost of a long value such as a sink.writes' lists. It
	// changes no line: a value that is plain is written the same either way.
	//
	// It is not part of the event. No line carries it and Read never sets it; the
	// Recorder clears it in the event it keeps, shows watchers and returns. A Recorder that
	// keeps events (the runs whose checkers judge the trace) does not take the word: it
	// looks at every value anyway and panics if one that was vouched for is not plain, so
	// that an emitter breaking its word is caught by any checked run rather than writing a
	// line that does not read back.
	PlainValues bool
}

// Attr is one extra field of an event. Values are strings so that an attribute has one text
// form; numbers are written in decimal.
type Attr struct {
	Key   string
	Value string
}

// Attr returns the value of the attribute named key and whether the event has it.
func (e *Event) Attr(key string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// String returns the canonical line of the event, without the trailing newline.
func (e Event) String() string {
	return string(appendEvent(nil, &e))
}

// Header is the first line of a trace file.
type Header struct {
	Version  int
	Scenario string
	Seed     uint64
	Build    string
}

// fixedKeys are the JSON keys of Event's own fields; an attribute may not reuse one.
var fixedKeys = []string{"seq", "t", "kind", "task", "from", "to", "cp", "reason", "txn", "rid", "fault"}

func isFixedKey(key string) bool {
	for _, k := range fixedKeys {
		if k == key {
			return true
		}
	}
	return false
}

// validAttrKey reports whether key may name an attribute: not empty, not a fixed key, and made
// of characters that need no escaping, so keys compare the same in text and in memory.
func validAttrKey(key string) bool {
	if key == "" || isFixedKey(key) {
		return false
	}
	return !strings.ContainsFunc(key, func(r rune) bool {
		return r <= ' ' || r == '"' || r == '\\' || r >= 0x7f
	})
}
