package scenarios

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// defaultedFields are the settings a missing value gives a default other than zero, by path
// in the file, with that default in words. Read into Go, a 0 written there is the same as no
// value at all and would silently become the default; refuseWrittenZeros makes it an error
// instead, so that zero never means something else. (Settings where a written zero is a
// value of its own, such as initial_tokens and tolerable_failures, keep it.)
var defaultedFields = []struct {
	object   string // "" for the top level, else a field holding an object (or array of them)
	field    string
	fallback string
}{
	{"topology", "parallelism", "1"},
	{"topology", "stages", "1"},
	{"topology", "inputs", "2"},
	{"topology", "processes", "3"},
	{"topology.nodes", "parallelism", "1"},
	{"workload", "records", "200"},
	{"workload", "keys", "8"},
	{"workload", "max_transfer", "5"},
	{"workload", "record_interval", "10ms"},
	{"checkpoint", "interval", "100ms"},
	{"checkpoint", "timeout", "1s"},
	{"checkpoint", "max_concurrent", "1"},
	{"checkpoint", "alignment_timeout", "20ms in aligned-with-timeout"},
	{"checkpoint", "max_buffered_records", "the protocol's 100000"},
	{"swarm", "max_faults", "6"},
	{"limits", "fault_phase", "3s"},
	{"limits", "heal_phase", "500ms"},
	{"limits", "liveness_bound", "5s"},
}

// refuseWrittenZeros reports the first defaulted setting (defaultedFields) that data, an
// already well-formed scenario file, sets to zero.
func refuseWrittenZeros(data []byte) error {
	var file map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		return nil // the strict decoder has said what is wrong
	}
	for _, f := range defaultedFields {
		objects, path := objectsAt(file, f.object)
		for i, o := range objects {
			value, ok := o[f.field]
			if !ok || !isZero(value) {
				continue
			}
			at := path + "." + f.field
			if len(objects) > 1 || f.object == "topology.nodes" {
				at = fmt.Sprintf("%s[%d].%s", path, i, f.field)
			}
			return fmt.Errorf("scenario.%s: a written 0 would silently mean the default (%s): leave the field out for the default, or give another value", at, f.fallback)
		}
	}
	return nil
}

// objectsAt returns the objects at path ("topology", or "topology.nodes" for the objects of
// an array), and the path as written.
func objectsAt(file map[string]any, path string) ([]map[string]any, string) {
	parent, field := path, ""
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			parent, field = path[:i], path[i+1:]
			break
		}
	}
	if field == "" {
		o, _ := file[path].(map[string]any)
		if o == nil {
			return nil, path
		}
		return []map[string]any{o}, path
	}
	outer, _ := file[parent].(map[string]any)
	items, _ := outer[field].([]any)
	var objects []map[string]any
	for _, item := range items {
		o, _ := item.(map[string]any)
		objects = append(objects, o)
	}
	return objects, path
}

// isZero reports whether a decoded JSON value is a zero number or a duration of zero.
func isZero(v any) bool {
	switch v := v.(type) {
	case float64:
		return v == 0
	case string:
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n == 0
		}
		var d Duration
		return d.UnmarshalText([]byte(v)) == nil && d == 0
	}
	return false
}
