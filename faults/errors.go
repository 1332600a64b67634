package faults

import "fmt"

// fieldErr returns a validation error naming the offending field by its JSON path, so that a
// message about a schedule file points at the exact place to fix.
func fieldErr(path, format string, args ...any) error {
	return fmt.Errorf("faults: %s: %s", path, fmt.Sprintf(format, args...))
}

// join extends a JSON path prefix ("" or "entries[2].fault") with a field name.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
