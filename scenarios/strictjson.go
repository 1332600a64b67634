package scenarios

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The scenario and artifact files are decoded strictly: an unknown field, a duplicate key, a
// value of the wrong type or trailing data is an error, and every error names the path of the
// offending field (scenario.faults[2].trigger.at). encoding/json alone reports unknown fields
// without their path and takes the last of duplicate keys silently, so the file is first read
// into a tree of tokens and then walked against the Go types by reflection.

// MaxFileBytes bounds a scenario or artifact file, so a wrong path to a huge file is a clear
// error rather than a large allocation.
const MaxFileBytes = 4 << 20

type nodeKind int

const (
	nodeNull nodeKind = iota
	nodeBool
	nodeNumber
	nodeString
	nodeArray
	nodeObject
)

// jsonNode is one JSON value: its kind and, by kind, its text, its items or its fields in file
// order.
type jsonNode struct {
	kind   nodeKind
	text   string // string value, or the literal text of a number
	truth  bool
	items  []jsonNode
	fields []jsonField
}

type jsonField struct {
	key   string
	value jsonNode
}

func (k nodeKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// decodeStrict reads data, which must hold exactly one JSON value, into v (a pointer), naming
// paths from root.
func decodeStrict(data []byte, root string, v any) error {
	if len(data) > MaxFileBytes {
		return fmt.Errorf("%s: file is %d bytes, more than the limit of %d", root, len(data), MaxFileBytes)
	}
	tree, err := parseTree(data)
	var dup *duplicateKeyError
	if errors.As(err, &dup) {
		return fmt.Errorf("%s%s: duplicate key %q", root, dup.path, dup.key)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", root, err)
	}
	return decodeNode(root, tree, reflect.ValueOf(v).Elem())
}

func parseTree(data []byte) (jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, data, "")
	if err != nil {
		return jsonNode{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonNode{}, fmt.Errorf("invalid JSON: unexpected data after the value (at %s)", position(data, dec.InputOffset()))
	}
	return n, nil
}

// readNode reads one value. path is used only to name duplicate keys.
func readNode(dec *json.Decoder, data []byte, path string) (jsonNode, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		return jsonNode{}, errors.New("invalid JSON: unexpected end of input")
	}
	if err != nil {
		return jsonNode{}, syntaxError(err, data, dec)
	}
	switch t := tok.(type) {
	case nil:
		return jsonNode{kind: nodeNull}, nil
	case bool:
		return jsonNode{kind: nodeBool, truth: t}, nil
	case json.Number:
		return jsonNode{kind: nodeNumber, text: string(t)}, nil
	case string:
		return jsonNode{kind: nodeString, text: t}, nil
	case json.Delim:
		if t == '[' {
			n := jsonNode{kind: nodeArray}
			for dec.More() {
				item, err := readNode(dec, data, fmt.Sprintf("%s[%d]", path, len(n.items)))
				if err != nil {
					return jsonNode{}, err
				}
				n.items = append(n.items, item)
			}
			if _, err := dec.Token(); err != nil {
				return jsonNode{}, syntaxError(err, data, dec)
			}
			return n, nil
		}
		n := jsonNode{kind: nodeObject}
		seen := map[string]bool{}
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return jsonNode{}, syntaxError(err, data, dec)
			}
			key := keyTok.(string) // the decoder guarantees object keys are strings
			if seen[key] {
				return jsonNode{}, &duplicateKeyError{path: path + "." + key, key: key}
			}
			seen[key] = true
			value, err := readNode(dec, data, path+"."+key)
			if err != nil {
				return jsonNode{}, err
			}
			n.fields = append(n.fields, jsonField{key: key, value: value})
		}
		if _, err := dec.Token(); err != nil {
			return jsonNode{}, syntaxError(err, data, dec)
		}
		return n, nil
	}
	panic(fmt.Sprintf("scenarios: unexpected JSON token %T", tok))
}

// duplicateKeyError names a key given twice in one object, by its path below the root.
type duplicateKeyError struct {
	path, key string
}

func (e *duplicateKeyError) Error() string { return e.path + ": duplicate key " + e.key }

func syntaxError(err error, data []byte, dec *json.Decoder) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at %s: %v", position(data, se.Offset), se)
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return errors.New("invalid JSON: unexpected end of input")
	}
	return fmt.Errorf("invalid JSON at %s: %v", position(data, dec.InputOffset()), err)
}

// position renders a byte offset as line:column, which is what an editor jumps to.
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	column := int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d column %d", line, column)
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// decodeNode stores n into v, which must be settable. Empty arrays become nil slices so that a
// decoded value marshals and decodes back to itself.
func decodeNode(path string, n jsonNode, v reflect.Value) error {
	if v.CanAddr() && v.Addr().Type().Implements(textUnmarshalerType) {
		if n.kind != nodeString {
			return fmt.Errorf("%s: must be a string, not %s", path, n.kind)
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.text)); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.kind == nodeNull {
			v.SetZero()
			return nil
		}
		elem := reflect.New(v.Type().Elem())
		if err := decodeNode(path, n, elem.Elem()); err != nil {
			return err
		}
		v.Set(elem)
		return nil
	case reflect.Slice:
		return decodeSlice(path, n, v)
	case reflect.Struct:
		return decodeStruct(path, n, v)
	case reflect.Map:
		return decodeMap(path, n, v)
	}
	return decodeScalar(path, n, v)
}

// decodeSlice stores a JSON array into a slice, its items' paths written path[i]; null and
// an empty array become nil.
func decodeSlice(path string, n jsonNode, v reflect.Value) error {
	if n.kind == nodeNull {
		v.SetZero()
		return nil
	}
	if n.kind != nodeArray {
		return fmt.Errorf("%s: must be an array, not %s", path, n.kind)
	}
	if len(n.items) == 0 {
		v.SetZero()
		return nil
	}
	s := reflect.MakeSlice(v.Type(), len(n.items), len(n.items))
	for i, item := range n.items {
		if err := decodeNode(fmt.Sprintf("%s[%d]", path, i), item, s.Index(i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// decodeScalar stores a JSON string, boolean or number into v, of the matching kind.
func decodeScalar(path string, n jsonNode, v reflect.Value) error {
	if n.kind == nodeNull {
		return fmt.Errorf("%s: must not be null", path)
	}
	switch v.Kind() {
	case reflect.String:
		if n.kind != nodeString {
			return fmt.Errorf("%s: must be a string, not %s", path, n.kind)
		}
		v.SetString(n.text)
	case reflect.Bool:
		if n.kind != nodeBool {
			return fmt.Errorf("%s: must be true or false, not %s", path, n.kind)
		}
		v.SetBool(n.truth)
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.kind != nodeNumber {
			return fmt.Errorf("%s: must be an integer, not %s", path, n.kind)
		}
		i, err := strconv.ParseInt(n.text, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s: must be an integer in range, not %s", path, n.text)
		}
		v.SetInt(i)
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		if n.kind != nodeNumber {
			return fmt.Errorf("%s: must be a non-negative integer, not %s", path, n.kind)
		}
		u, err := strconv.ParseUint(n.text, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s: must be a non-negative integer in range, not %s", path, n.text)
		}
		v.SetUint(u)
	case reflect.Float64:
		if n.kind != nodeNumber {
			return fmt.Errorf("%s: must be a number, not %s", path, n.kind)
		}
		f, err := strconv.ParseFloat(n.text, 64)
		if err != nil {
			return fmt.Errorf("%s: must be a number in range, not %s", path, n.text)
		}
		v.SetFloat(f)
	default:
		panic(fmt.Sprintf("scenarios: decodeScalar: unsupported type %s at %s", v.Type(), path))
	}
	return nil
}

// decodeMap stores a JSON object into a map with string keys, its members' paths written
// path["key"]; an empty object, like an empty array, becomes nil.
func decodeMap(path string, n jsonNode, v reflect.Value) error {
	if n.kind == nodeNull {
		v.SetZero()
		return nil
	}
	if n.kind != nodeObject {
		return fmt.Errorf("%s: must be an object, not %s", path, n.kind)
	}
	if v.Type().Key().Kind() != reflect.String {
		panic(fmt.Sprintf("scenarios: decodeMap: unsupported key type %s at %s", v.Type().Key(), path))
	}
	if len(n.fields) == 0 {
		v.SetZero()
		return nil
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.fields))
	for _, f := range n.fields {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := decodeNode(fmt.Sprintf("%s[%q]", path, f.key), f.value, elem); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(f.key).Convert(v.Type().Key()), elem)
	}
	v.Set(m)
	return nil
}

func decodeStruct(path string, n jsonNode, v reflect.Value) error {
	if n.kind != nodeObject {
		return fmt.Errorf("%s: must be an object, not %s", path, n.kind)
	}
	fields := structFields(v.Type())
	v.SetZero()
	nanos := nanosKeys(v)
	for _, f := range n.fields {
		index, ok := fields.byName[f.key]
		if !ok {
			return fmt.Errorf("%s.%s: unknown field (known: %s)", path, f.key, strings.Join(fields.names, ", "))
		}
		decode := decodeNode
		if slices.Contains(nanos, f.key) {
			decode = decodeNanos
		}
		if err := decode(path+"."+f.key, f.value, v.FieldByIndex(index)); err != nil {
			return err
		}
	}
	return nil
}

// nanosTyped is a type whose files give some spans in integer nanoseconds while its Go
// fields are Durations (faults.Fault, faults.Trigger): their keys.
type nanosTyped interface{ NanosKeys() []string }

var nanosTypedType = reflect.TypeFor[nanosTyped]()

// nanosKeys returns the keys of v's spans in nanoseconds, nil if it has none.
func nanosKeys(v reflect.Value) []string {
	if !v.Type().Implements(nanosTypedType) {
		return nil
	}
	return v.Interface().(nanosTyped).NanosKeys()
}

// decodeNanos stores a whole number of nanoseconds into a Duration field.
func decodeNanos(path string, n jsonNode, v reflect.Value) error {
	if n.kind != nodeNumber {
		return fmt.Errorf("%s: must be a number of nanoseconds, not %s", path, n.kind)
	}
	nanos, err := strconv.ParseInt(n.text, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not a whole number of nanoseconds", path, n.text)
	}
	v.SetInt(nanos)
	return nil
}

// fieldTable maps the JSON names of a struct's fields to their index paths. An embedded
// struct without a JSON name has its fields flattened into its parent's, as encoding/json
// does.
type fieldTable struct {
	byName map[string][]int
	names  []string // in declaration order, for error messages
}

var fieldTables sync.Map // reflect.Type -> *fieldTable

func structFields(t reflect.Type) *fieldTable {
	if cached, ok := fieldTables.Load(t); ok {
		return cached.(*fieldTable)
	}
	table := &fieldTable{byName: map[string][]int{}}
	table.add(t, nil)
	fieldTables.Store(t, table)
	return table
}

func (table *fieldTable) add(t reflect.Type, prefix []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		index := append(append([]int(nil), prefix...), i)
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			table.add(f.Type, index)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			panic(fmt.Sprintf("scenarios: field %s.%s has no json name", t.Name(), f.Name))
		}
		table.byName[name] = index
		table.names = append(table.names, name)
	}
}
