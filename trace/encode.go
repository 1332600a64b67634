package trace

import "slices"

// appendEvent appends the canonical line of e (no newline) to buf. Attributes out of key
// order are sorted in a copy, which replaces e.Attrs; the caller's slice stays as it was.
func appendEvent(buf []byte, e *Event) []byte {
	if !attrsSorted(e.Attrs) {
		e.Attrs = sortedAttrs(e.Attrs)
	}
	return appendLine(buf, e, false, false)
}

// appendLine appends the canonical line of e, whose attributes are in key order. It is the
// only place that decides field order, so the hash, the files and String all agree.
// keysChecked says that every attribute key passed attrKeyAllowed (the Recorder has checked
// them), so they need no escaping and are copied as they are; valuesPlain says that every
// attribute value is plain (see Event.PlainValues), so that they are copied as they are too.
func appendLine(buf []byte, e *Event, keysChecked, valuesPlain bool) []byte {
	buf = append(buf, `{"seq":`...)
	buf = AppendUint(buf, e.Seq)
	buf = append(buf, `,"t":`...)
	buf = AppendInt(buf, e.T)
	// The fixed keys are written as literals: they never need escaping.
	buf = appendFixed(buf, `,"kind":"`, e.Kind)
	buf = appendFixed(buf, `,"task":"`, e.Task)
	buf = appendFixed(buf, `,"from":"`, e.From)
	buf = appendFixed(buf, `,"to":"`, e.To)
	if e.CP != 0 {
		buf = append(buf, `,"cp":`...)
		buf = AppendUint(buf, e.CP)
	}
	buf = appendFixed(buf, `,"reason":"`, e.Reason)
	buf = appendFixed(buf, `,"txn":"`, e.Txn)
	buf = appendFixed(buf, `,"rid":"`, e.RID)
	buf = appendFixed(buf, `,"fault":"`, e.Fault)
	for _, a := range e.Attrs {
		if a.Value == "" {
			continue
		}
		if keysChecked {
			buf = append(buf, ',', '"')
			buf = append(buf, a.Key...)
			buf = append(buf, '"', ':', '"')
		} else {
			buf = append(buf, ',')
			buf = appendString(buf, a.Key)
			buf = append(buf, ':', '"')
		}
		if valuesPlain {
			buf = append(buf, a.Value...)
			buf = append(buf, '"')
		} else {
			buf = appendValue(buf, a.Value)
		}
	}
	return append(buf, '}')
}

// appendFixed appends prefix (`,"key":"`, with the value's opening quote) and the rest of
// value as a JSON string, or nothing when value is empty.
func appendFixed(buf []byte, prefix, value string) []byte {
	if value == "" {
		return buf
	}
	return appendValue(append(buf, prefix...), value)
}

// appendValue appends value as a JSON string whose opening quote is already written.
//
// Most values are task names, kinds and transaction ids of four to sixteen bytes, which it
// checks here as plainString would, with one or two (overlapping) words and no call.
func appendValue(buf []byte, value string) []byte {
	var isPlain bool
	switch n := len(value); {
	case n > 16 || n < 4:
		isPlain = plainString(value)
	case n >= 8:
		isPlain = plainWord(word(value)) && plainWord(word(value[n-8:]))
	default:
		isPlain = plainWord(uint64(halfWord(value)) | uint64(halfWord(value[n-4:]))<<32)
	}
	if isPlain {
		buf = append(buf, value...)
		return append(buf, '"')
	}
	return appendEscaped(buf, value)
}

func attrsSorted(attrs []Attr) bool {
	for i := 1; i < len(attrs); i++ {
		if attrs[i-1].Key > attrs[i].Key {
			return false
		}
	}
	return true
}

// sortedAttrs returns a copy of attrs in key order, keeping the order of equal keys.
func sortedAttrs(attrs []Attr) []Attr {
	attrs = slices.Clone(attrs)
	slices.SortStableFunc(attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	return attrs
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// appendHeader appends the canonical header line (no newline).
func appendHeader(buf []byte, h Header) []byte {
	buf = append(buf, `{"kind":"trace.header","version":`...)
	buf = AppendInt(buf, int64(h.Version))
	buf = append(buf, `,"scenario":`...)
	buf = appendString(buf, h.Scenario)
	buf = append(buf, `,"seed":`...)
	buf = AppendUint(buf, h.Seed)
	buf = append(buf, `,"build":`...)
	buf = appendString(buf, h.Build)
	return append(buf, '}')
}
