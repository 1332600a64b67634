package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// problems collects validation errors, each naming the path of the field at fault.
type problems struct {
	list []string
}

func (p *problems) add(path, format string, args ...any) {
	p.list = append(p.list, path+": "+fmt.Sprintf(format, args...))
}

// err returns the first problem, noting how many more there are: one line a user can act on.
func (p *problems) err() error {
	switch len(p.list) {
	case 0:
		return nil
	case 1:
		return errors.New(p.list[0])
	case 2:
		return fmt.Errorf("%s (and 1 more problem)", p.list[0])
	}
	return fmt.Errorf("%s (and %d more problems)", p.list[0], len(p.list)-1)
}

func (p *problems) oneOf(path, value string, allowed []string) bool {
	if value == "" {
		p.add(path, "is required (one of %s)", strings.Join(allowed, ", "))
		return false
	}
	if !slices.Contains(allowed, value) {
		p.add(path, "%q is not one of %s", value, strings.Join(allowed, ", "))
		return false
	}
	return true
}

func (p *problems) intIn(path string, v, lo, hi int) {
	if v < lo || v > hi {
		p.add(path, "must be between %d and %d, not %d", lo, hi, v)
	}
}

func (p *problems) unused(path string, isSet bool, why string) {
	if isSet {
		p.add(path, "not used %s", why)
	}
}

func (p *problems) span(path string, d Duration, positive bool) {
	switch {
	case d < 0:
		p.add(path, "must be >= 0")
	case positive && d == 0:
		p.add(path, "must be > 0")
	case d > MaxSpan:
		p.add(path, "must be at most %s", MaxSpan)
	}
}
