package engine

import "fmt"

// InvariantError is what the engine panics with when one of its own checks fails: a queue
// over its bound, credits beyond those granted, a message no process expects, a write that
// goes back a version. Each names the state it found broken, so a harness judges it as a
// broken invariant (a verdict that says what broke) rather than a crash, as it does the
// protocol's *protocol.InvariantError. A runtime error of the engine's code (an index out
// of range) is no such check: it fails the task or coordinator being served (guard.go).
type InvariantError struct {
	Message string
}

func (e *InvariantError) Error() string { return e.Message }

// invariantf is the *InvariantError of a failed check, its message formatted.
func invariantf(format string, args ...any) *InvariantError {
	return &InvariantError{Message: fmt.Sprintf(format, args...)}
}
