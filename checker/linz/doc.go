// Package linz holds the sequential models that checker hands to porcupine, and the one way
// checker runs porcupine: with a budget of model steps whose exhaustion is an explicit
// unknown, the same on every machine; a wall-clock timeout only as a safety net; and with
// porcupine's HTML visualization written next to a run's artifacts when a history has no
// linearization.
//
// Model states are plain integers. porcupine compares states with == unless told otherwise
// and caches visited (linearized set, state) pairs by hash, so an integer state keeps both
// correct and cheap, where a slice or map state would make the default equality panic.
//
// Operation times are positions on the trace, not virtual nanoseconds: the event at index i
// returns at 2i+1, and an operation that began at virtual time t is invoked at 2j, just before
// the first event j at or after t. Events at the same virtual time are thus still ordered as
// the trace orders them, while an invocation is never placed later than it could have been.
package linz
