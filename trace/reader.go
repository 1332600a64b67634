package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// MaxLineBytes bounds one line of a trace file; a longer line is an error, not a large
// allocation.
const MaxLineBytes = 1 << 20

// Reader reads a trace file line by line.
type Reader struct {
	scan   *bufio.Scanner
	line   int
	header Header
}

// NewReader reads and checks the header of the trace in r. Traces of a newer schema version
// are refused, since their fields may mean something else.
func NewReader(r io.Reader) (*Reader, error) {
	scan := bufio.NewScanner(r)
	scan.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	rd := &Reader{scan: scan}
	raw, err := rd.nextLine()
	if err == io.EOF {
		return nil, errors.New("trace: empty file: no header line")
	}
	if err != nil {
		return nil, err
	}
	var h struct {
		Kind     string `json:"kind"`
		Version  *int   `json:"version"`
		Scenario string `json:"scenario"`
		Seed     uint64 `json:"seed"`
		Build    string `json:"build"`
	}
	if _, err := objectFields(raw); err != nil {
		return nil, fmt.Errorf("trace: line 1: bad header: %v", err)
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("trace: line 1: bad header: %v", err)
	}
	if h.Kind != "trace.header" || h.Version == nil {
		return nil, errors.New(`trace: line 1: not a trace header (want {"kind":"trace.header","version":1,...})`)
	}
	if *h.Version < 1 || *h.Version > Version {
		return nil, fmt.Errorf("trace: line 1: schema version %d, this build reads 1 to %d", *h.Version, Version)
	}
	rd.header = Header{Version: *h.Version, Scenario: h.Scenario, Seed: h.Seed, Build: h.Build}
	return rd, nil
}

// Header returns the trace's header.
func (rd *Reader) Header() Header { return rd.header }

func (rd *Reader) nextLine() ([]byte, error) {
	for rd.scan.Scan() {
		rd.line++
		if line := bytes.TrimSpace(rd.scan.Bytes()); len(line) > 0 {
			return line, nil
		}
	}
	if err := rd.scan.Err(); err != nil {
		return nil, fmt.Errorf("trace: line %d: %v", rd.line+1, err)
	}
	return nil, io.EOF
}

// Next returns the next event, or io.EOF after the last.
func (rd *Reader) Next() (Event, error) {
	raw, err := rd.nextLine()
	if err != nil {
		return Event{}, err
	}
	e, err := parseEvent(raw)
	if err != nil {
		return Event{}, fmt.Errorf("trace: line %d: %v", rd.line, err)
	}
	return e, nil
}

// ReadAll reads a whole trace file.
func ReadAll(r io.Reader) (Header, []Event, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Header{}, nil, err
	}
	var events []Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return rd.header, events, nil
		}
		if err != nil {
			return rd.header, events, err
		}
		events = append(events, e)
	}
}

// objectFields decodes one JSON object into its fields by key. A key that appears twice is
// an error: encoding/json would keep the last value silently, so the line would mean
// something other than what its writer hashed.
func objectFields(raw []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	fields := make(map[string]json.RawMessage)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		key := tok.(string) // inside an object, the decoder yields only string keys here
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		fields[key] = value
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a JSON object: data after its closing brace")
	}
	return fields, nil
}

// parseEvent decodes one event line. Unknown keys become attributes, so traces that carry
// fields this build does not know still read; string-valued ones keep their hash.
func parseEvent(raw []byte) (Event, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return Event{}, err
	}
	var e Event
	num := func(key string) uint64 {
		v, ok := fields[key]
		if !ok || err != nil {
			return 0
		}
		n, perr := strconv.ParseUint(string(v), 10, 64)
		if perr != nil {
			err = fmt.Errorf("%q must be a non-negative integer, got %s", key, v)
		}
		return n
	}
	str := func(key string) string {
		v, ok := fields[key]
		if !ok || err != nil {
			return ""
		}
		var s string
		if uerr := json.Unmarshal(v, &s); uerr != nil {
			err = fmt.Errorf("%q must be a string, got %s", key, v)
		}
		return s
	}
	if _, ok := fields["seq"]; !ok {
		return Event{}, errors.New(`missing "seq"`)
	}
	if _, ok := fields["kind"]; !ok {
		return Event{}, errors.New(`missing "kind"`)
	}
	e.Seq = num("seq")
	t := num("t")
	if t > 1<<63-1 {
		return Event{}, errors.New(`"t" is out of range`)
	}
	e.T = int64(t)
	e.CP = num("cp")
	e.Kind = str("kind")
	e.Task = str("task")
	e.From = str("from")
	e.To = str("to")
	e.Reason = str("reason")
	e.Txn = str("txn")
	e.RID = str("rid")
	e.Fault = str("fault")
	if err != nil {
		return Event{}, err
	}
	if e.Kind == "" {
		return Event{}, errors.New(`"kind" is empty`)
	}
	if e.Attrs, err = parseAttrs(fields); err != nil {
		return Event{}, err
	}
	return e, nil
}

// parseAttrs returns the attributes among an event's fields (every key but the fixed ones),
// sorted by key. A string keeps its value; a number or other literal keeps its text form.
func parseAttrs(fields map[string]json.RawMessage) ([]Attr, error) {
	var attrs []Attr
	for key, v := range fields {
		if isFixedKey(key) {
			continue
		}
		if !validAttrKey(key) {
			return nil, fmt.Errorf("bad attribute name %q", key)
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		attrs = append(attrs, Attr{Key: key, Value: s})
	}
	slices.SortFunc(attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	return attrs, nil
}
