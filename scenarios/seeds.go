package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SeedRange is an inclusive range of seeds, written "A-B" (or "A" for a single seed) in files
// and on the command line.
type SeedRange struct {
	First uint64
	Last  uint64
}

// ParseSeedRange reads "A-B" or "A". A range must not run backwards.
func ParseSeedRange(text string) (SeedRange, error) {
	first, last, isRange := strings.Cut(text, "-")
	a, err := parseSeed(first)
	if err != nil {
		return SeedRange{}, fmt.Errorf("bad seed range %q: %v", text, err)
	}
	b := a
	if isRange {
		if b, err = parseSeed(last); err != nil {
			return SeedRange{}, fmt.Errorf("bad seed range %q: %v", text, err)
		}
	}
	if b < a {
		return SeedRange{}, fmt.Errorf("bad seed range %q: the first seed is after the last", text)
	}
	return SeedRange{First: a, Last: b}, nil
}

func parseSeed(text string) (uint64, error) {
	if text == "" {
		return 0, errors.New("want A-B with non-negative integers A <= B")
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a non-negative integer", text)
	}
	return n, nil
}

// Count returns the number of seeds in r; the full uint64 range saturates at the maximum.
func (r SeedRange) Count() uint64 {
	if r.Last-r.First == ^uint64(0) {
		return ^uint64(0)
	}
	return r.Last - r.First + 1
}

// IsZero reports whether r is the zero value, which files use for "not given".
func (r SeedRange) IsZero() bool { return r == SeedRange{} }

// String returns "A-B", or "A" for a single seed.
func (r SeedRange) String() string {
	if r.First == r.Last {
		return strconv.FormatUint(r.First, 10)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// MarshalText writes the range as String does.
func (r SeedRange) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads "A-B" or "A".
func (r *SeedRange) UnmarshalText(text []byte) error {
	parsed, err := ParseSeedRange(string(text))
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}
