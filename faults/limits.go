package faults

// Limits on every number a schedule may hold. They keep a run bounded whatever a hand-written
// or fuzzed schedule says, and keep arithmetic on virtual times far from overflow.
const (
	// MaxEntries bounds the length of a schedule.
	MaxEntries = 10_000
	// MaxDurationNanos bounds every window, delay and timeout: one virtual day.
	MaxDurationNanos = 24 * 60 * 60 * 1_000_000_000
	// MaxAtNanos bounds the virtual time of an at trigger: about 31 virtual years.
	MaxAtNanos = 1_000_000_000_000_000_000
	// MaxNth bounds the n of an nth trigger and the max of a chance trigger.
	MaxNth = 1_000_000
	// MaxSkewPPM bounds timer skew either way, so a skewed timer still fires after a positive
	// delay.
	MaxSkewPPM int64 = 900_000
	// MaxNameBytes bounds task, host, store and endpoint names.
	MaxNameBytes = 128
	// DefaultMaxFaults is the injector's bound on injected faults when Config leaves it 0.
	DefaultMaxFaults = 1_000
)

// validName reports whether s may name a task, host, store or endpoint: 1 to MaxNameBytes
// letters, digits and -_.:/@. The set is narrow so that a name never needs quoting in a
// String() line or a trace field, and a key=value line splits unambiguously.
func validName(s string) bool {
	if s == "" || len(s) > MaxNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '_', c == '.', c == ':', c == '/', c == '@':
		default:
			return false
		}
	}
	return true
}
