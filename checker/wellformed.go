package checker

import (
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// WellFormed checks what every other property takes for granted: sequence numbers count up
// by one, virtual time never goes back, every event is of a kind schema v1 defines and
// carries exactly the fields and attributes the schema gives that kind (trace.FieldsOf), and
// numeric attributes (records, start, tokens, taken and the per-channel counts) are
// non-negative decimal integers, with start no later than the event, and a list of recorded
// messages (chanmsgs.<task>) is such integers joined by single spaces. A trace from another
// engine that fails here would otherwise be judged on misread data: a misspelt kind or
// attribute is evidence that no property would see. A trace without events is unknown.
func WellFormed(events []trace.Event) Result {
	var violations []Violation
	var schemas schemaCache
	for i := range events {
		e := &events[i]
		if i > 0 {
			prev := &events[i-1]
			if e.Seq != prev.Seq+1 {
				violations = append(violations, violationAt(PropWellFormed, e, "seq %d follows seq %d", e.Seq, prev.Seq))
			}
			if e.T < prev.T {
				violations = append(violations, violationAt(PropWellFormed, e, "time goes back from t=%d to t=%d", prev.T, e.T))
			}
		}
		found, kinds := schemas.judge(e)
		violations = append(violations, found...)
		if e.Kind == trace.KindSinkWrites {
			violations = append(violations, judgeWriteLists(e)...)
		}
		for j, a := range e.Attrs {
			var kind valueKind
			if kinds != nil {
				kind = kinds[j]
			} else {
				kind = valueKindOf(a.Key)
			}
			if kind&numberListValue != 0 && !numberList(a.Value) {
				violations = append(violations, violationAt(PropWellFormed, e,
					"attribute %s=%q is not a list of non-negative integers separated by single spaces", a.Key, a.Value))
			}
			if msg := judgeItemList(kind, a.Value); msg != "" {
				violations = append(violations, violationAt(PropWellFormed, e, "attribute %s=%q is not %s", a.Key, a.Value, msg))
			}
			if kind&numberValue == 0 {
				continue
			}
			n, ok := parseInt(a.Value)
			switch {
			case !ok || n < 0:
				violations = append(violations, violationAt(PropWellFormed, e,
					"attribute %s=%q is not a non-negative integer", a.Key, a.Value))
			case a.Key == trace.AttrStart && n > e.T:
				violations = append(violations, violationAt(PropWellFormed, e,
					"start=%d is later than the event's t=%d", n, e.T))
			}
		}
	}
	if len(events) == 0 {
		return unknownResult(PropWellFormed, "the trace holds no events")
	}
	return resultInOrder(PropWellFormed, violations)
}

// fixedFields are the fields of trace.Event beyond seq, t and kind, in line order.
var fixedFields = []string{"task", "from", "to", "cp", "reason", "txn", "rid", "fault"}

// schemaCache remembers, per kind, its schema and its fixed fields as bit sets over
// fixedFields, worked out on the kind's first event rather than at every change of kind
// (kinds interleave: a sink's writes, a round of barriers, the acks). An event whose fixed
// fields are what its kind requires and allows is then judged on them with two mask
// operations, instead of a string switch for each of the eight; any other event is judged
// field by field, for the messages.
type schemaCache struct {
	kind   string      // kind of the last event judged
	last   *kindSchema // its schema, nil for a kind outside the schema
	byKind map[string]*kindSchema
}

type kindSchema struct {
	fields   *trace.Fields
	required uint8 // bit i: fixedFields[i] is required
	allowed  uint8 // bit i: fixedFields[i] is allowed
	exact    bool  // the kind requires only fixed fields, so the masks decide them all
	// keys are the attribute keys, in order, of the last event of this kind whose keys
	// broke no rule of the schema. The schema judges keys alone, so an event with the same
	// keys breaks none either (an engine writes the same keys for events of one kind, time
	// after time), and is judged by comparing its keys with these.
	keys []string
	// kinds are the value kinds of keys, worked out once for them (valueKindOf).
	kinds []valueKind
}

// valueKind says what the value of an attribute must look like, by its key.
type valueKind uint8

const (
	numberValue     valueKind = 1 << iota // a non-negative decimal integer (numericAttr)
	numberListValue                       // such integers joined by single spaces (chanmsgs.<task>)
	replayedValue                         // task:count items (replayed)
	entriesValue                          // key:value items (union.<state>)
)

// judgeItemList says what the value of an attribute of kind should be and is not, or "".
func judgeItemList(kind valueKind, v string) string {
	switch {
	case kind&replayedValue != 0:
		if _, ok := replayedCounts(v); !ok {
			return "a list of task:count items separated by single spaces, or " + trace.NoneRead
		}
	case kind&entriesValue != 0:
		if _, ok := trace.ParseEntries(v); !ok {
			return "a list of key:value items separated by single spaces, or " + trace.NoneRead
		}
	}
	return ""
}

func valueKindOf(key string) valueKind {
	var kind valueKind
	if numericAttr(key) {
		kind |= numberValue
	}
	if strings.HasPrefix(key, trace.AttrChanMsgsPrefix) {
		kind |= numberListValue
	}
	switch {
	case key == trace.AttrReplayed:
		kind |= replayedValue
	case strings.HasPrefix(key, trace.AttrUnionPrefix):
		kind |= entriesValue
	}
	return kind
}

// judge checks e against the fields and attributes schema v1 gives its kind. When e's
// attribute keys are those of the kind's last good event, it returns their value kinds too,
// one per attribute, so that WellFormed need not work them out from the keys again.
func (c *schemaCache) judge(e *trace.Event) ([]Violation, []valueKind) {
	if c.byKind == nil || e.Kind != c.kind {
		c.kind, c.last = e.Kind, c.schemaOf(e.Kind)
	}
	k := c.last
	if k == nil {
		return []Violation{violationAt(PropWellFormed, e, "kind %q is not defined by trace schema v%d", e.Kind, trace.Version)}, nil
	}
	if present := presentFields(e); !k.exact || present&k.required != k.required || present&^k.allowed != 0 {
		return judgeSchema(e, k.fields), nil
	}
	if k.sameKeys(e.Attrs) {
		return nil, k.kinds
	}
	violations := judgeAttrs(e, k.fields, nil)
	if len(violations) == 0 {
		k.keys, k.kinds = k.keys[:0], k.kinds[:0]
		for _, a := range e.Attrs {
			k.keys = append(k.keys, a.Key)
			k.kinds = append(k.kinds, valueKindOf(a.Key))
		}
	}
	return violations, nil
}

// sameKeys reports whether attrs have the keys of k.keys, in order.
func (k *kindSchema) sameKeys(attrs []trace.Attr) bool {
	if k.keys == nil || len(attrs) != len(k.keys) {
		return false
	}
	for i, a := range attrs {
		if a.Key != k.keys[i] {
			return false
		}
	}
	return true
}

// schemaOf returns the schema of kind, or nil for a kind schema v1 does not define.
func (c *schemaCache) schemaOf(kind string) *kindSchema {
	if k, seen := c.byKind[kind]; seen {
		return k
	}
	if c.byKind == nil {
		c.byKind = make(map[string]*kindSchema)
	}
	fields, ok := trace.FieldsOf(kind)
	if !ok {
		c.byKind[kind] = nil
		return nil
	}
	k := &kindSchema{fields: fields, exact: true}
	for i, field := range fixedFields {
		if fields.AllowsField(field) {
			k.allowed |= 1 << i
		}
	}
	for _, field := range fields.Required {
		if i := slices.Index(fixedFields, field); i >= 0 {
			k.required |= 1 << i
		} else {
			k.exact = false
		}
	}
	c.byKind[kind] = k
	return k
}

// presentFields returns e's fixed fields that are set, as a bit set over fixedFields.
func presentFields(e *trace.Event) uint8 {
	var present uint8
	for i, set := range [...]bool{e.Task != "", e.From != "", e.To != "", e.CP != 0, e.Reason != "", e.Txn != "", e.RID != "", e.Fault != ""} {
		if set {
			present |= 1 << i
		}
	}
	return present
}

// judgeSchema checks e against fields, the fields and attributes schema v1 gives its kind.
func judgeSchema(e *trace.Event, fields *trace.Fields) []Violation {
	var violations []Violation
	for _, field := range fields.Required {
		if !hasField(e, field) {
			violations = append(violations, violationAt(PropWellFormed, e, "%s without %s", e.Kind, field))
		}
	}
	for _, field := range fixedFields {
		if hasField(e, field) && !fields.AllowsField(field) {
			violations = append(violations, violationAt(PropWellFormed, e, "%s has field %s, which the schema does not give it", e.Kind, field))
		}
	}
	return judgeAttrs(e, fields, violations)
}

// judgeAttrs appends to violations those of e's attributes against fields.
func judgeAttrs(e *trace.Event, fields *trace.Fields, violations []Violation) []Violation {
	for _, key := range fields.RequiredAttrs {
		if _, ok := e.Attr(key); !ok {
			violations = append(violations, violationAt(PropWellFormed, e, "%s without %s", e.Kind, key))
		}
	}
	for _, a := range e.Attrs {
		if !fields.Allows(a.Key) {
			violations = append(violations, violationAt(PropWellFormed, e, "%s has attribute %s, which the schema does not give it", e.Kind, a.Key))
		}
	}
	return violations
}

// judgeWriteLists checks that a sink.writes lists one value per record id when it lists values
// at all, since exactly-once pairs them up by position.
func judgeWriteLists(e *trace.Event) []Violation {
	values, ok := e.Attr(trace.AttrValues)
	if !ok {
		return nil
	}
	rids, _ := e.Attr(trace.AttrRIDs)
	nRIDs := strings.Count(rids, trace.ListSeparator) + 1
	nValues := strings.Count(values, trace.ListSeparator) + 1
	if nRIDs != nValues {
		return []Violation{violationAt(PropWellFormed, e, "sink.writes lists %d record ids but %d values", nRIDs, nValues)}
	}
	return nil
}

func hasField(e *trace.Event, field string) bool {
	switch field {
	case "task":
		return e.Task != ""
	case "to":
		return e.To != ""
	case "from":
		return e.From != ""
	case "cp":
		return e.CP != 0
	case "txn":
		return e.Txn != ""
	case "rid":
		return e.RID != ""
	case "reason":
		return e.Reason != ""
	case "fault":
		return e.Fault != ""
	}
	_, ok := e.Attr(field)
	return ok
}

// numberList reports whether s is a list of non-negative decimal integers joined by
// trace.ListSeparator, or empty (chanmsgs.<task>).
func numberList(s string) bool {
	if s == "" {
		return true
	}
	for item := range strings.SplitSeq(s, trace.ListSeparator) {
		if n, ok := parseInt(item); !ok || n < 0 {
			return false
		}
	}
	return true
}

// numericPrefixes are the prefixes of numeric attribute keys.
var numericPrefixes = []string{trace.AttrSentPrefix, trace.AttrRecvPrefix, trace.AttrChanPrefix, trace.AttrOutPrefix, trace.AttrChanTokensPrefix, trace.AttrChanMorePrefix}

func numericAttr(key string) bool {
	switch key {
	case trace.AttrRecords, trace.AttrStart, trace.AttrTokens, trace.AttrTaken:
		return true
	}
	for _, prefix := range numericPrefixes {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}
