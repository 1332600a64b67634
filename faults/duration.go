package faults

import (
	"fmt"
	"time"
)

// Duration is a span of virtual time, in nanoseconds: the one duration type of the fault and
// scenario APIs (package scenarios names it too). In files it is written the way Go prints
// durations ("250ms", "1m30s"), which reads better than a count of nanoseconds and converts
// back exactly.
type Duration int64

// Nanos returns d in nanoseconds, the unit of the simulator's clock.
func (d Duration) Nanos() int64 { return int64(d) }

// String returns d in Go's duration syntax.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes d as a duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a duration string. A bare number is refused: its unit would be a guess.
func (d *Duration) UnmarshalText(text []byte) error {
	parsed, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("must be a duration such as \"250ms\" or \"2s\", not %q", text)
	}
	*d = Duration(parsed)
	return nil
}

// Millis returns n milliseconds.
func Millis(n int64) Duration { return Duration(n * int64(time.Millisecond)) }

// Seconds returns n seconds.
func Seconds(n int64) Duration { return Duration(n * int64(time.Second)) }
