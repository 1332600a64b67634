package scenarios

import "github.com/ckptsim/ckptsim/faults"

// Duration is a span of virtual time: faults.Duration, the one duration type of the scenario
// and fault APIs. In files it is written the way Go prints durations ("250ms", "1m30s").
type Duration = faults.Duration

// Millis returns n milliseconds, for writing the catalogue and tests.
func Millis(n int64) Duration { return faults.Millis(n) }

// Seconds returns n seconds.
func Seconds(n int64) Duration { return faults.Seconds(n) }
