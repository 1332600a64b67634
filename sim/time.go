package sim

import (
	"math"
	"strconv"
	"time"
)

// Time is an instant on the virtual clock, in virtual nanoseconds since the start of the run.
// It is a distinct type from time.Duration so that an instant and a span cannot be mixed up;
// spans are plain time.Duration values (time.Millisecond and friends), which lets code that
// must not import sim (the engine's Env) still speak in the same units.
type Time int64

// Never is the instant after every other: a limit that never triggers.
const Never Time = math.MaxInt64

// Nanoseconds returns t as a count of virtual nanoseconds since the start of the run.
func (t Time) Nanoseconds() int64 { return int64(t) }

// Add returns t+d, saturating at Never instead of wrapping around, so that "now plus a huge
// timeout" stays in the future. A negative d is a programming error (time never runs
// backwards in the kernel) and panics.
func (t Time) Add(d time.Duration) Time {
	if d < 0 {
		panicNegativeAdd(d) // out of line, so that Add itself is small enough to inline
	}
	if Time(d) > Never-t {
		return Never
	}
	return t + Time(d)
}

func panicNegativeAdd(d time.Duration) {
	panic("sim: Time.Add with negative duration " + d.String())
}

// Sub returns the span t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// String renders t as exact integer nanoseconds ("1500000ns"): stable, lossless and easy to
// diff in logs, unlike time.Duration's adaptive units.
func (t Time) String() string { return strconv.FormatInt(int64(t), 10) + "ns" }

// TimeAt returns the instant d after the start of the run: sim.TimeAt(50*time.Millisecond).
func TimeAt(d time.Duration) Time { return Time(0).Add(d) }
