package chandylamport

import (
	"errors"
	"fmt"
)

// The expected failures. Every error this package returns wraps one of these, so hosts can
// test with errors.Is; the wrapping message names the process, snapshot and channel involved.
// Broken internal invariants are not errors: they panic.
var (
	// ErrBadName: a process name is empty or holds a separator (see ProcessID).
	ErrBadName = errors.New("chandylamport: bad process name")
	// ErrBadGraph: a graph or a process configuration is malformed: a self-loop, a duplicate
	// channel or process, an endpoint that is not a process.
	ErrBadGraph = errors.New("chandylamport: bad graph")
	// ErrBadConfig: a limit is out of range.
	ErrBadConfig = errors.New("chandylamport: bad config")
	// ErrUnknownChannel: an input names a channel that does not end at this process.
	ErrUnknownChannel = errors.New("chandylamport: unknown channel")
	// ErrUnknownProcess: a report or abort comes from a process the collector's graph lacks.
	ErrUnknownProcess = errors.New("chandylamport: unknown process")
	// ErrUnknownSnapshot: an input names a snapshot that the receiver is not tracking.
	ErrUnknownSnapshot = errors.New("chandylamport: unknown snapshot")
	// ErrDuplicateMarker: a marker arrived on a channel that already delivered the marker of
	// the same snapshot. With FIFO, exactly-once channels this never happens; it means the
	// host or the network duplicated a marker.
	ErrDuplicateMarker = errors.New("chandylamport: duplicate marker")
	// ErrStaleMarker, which wraps ErrDuplicateMarker: the first marker of an origin's
	// snapshot older than one the process has recorded. A duplicated marker makes it, and so
	// does a lost one: when an origin's marker of snapshot n is lost on the way to a process
	// that then hears of snapshot n+1 first, n's marker that comes later by another path is
	// stale. The process holds nothing for n and never will, so n cannot complete there; a
	// host on a network that loses markers ignores the error and lets n time out.
	ErrStaleMarker = fmt.Errorf("%w: stale", ErrDuplicateMarker)
	// ErrAlreadyRecorded: Join asked a process to record a snapshot it has already recorded.
	ErrAlreadyRecorded = errors.New("chandylamport: already recorded")
	// ErrStatePending: the process asked for its state (RecordState) and the host called
	// another input before answering with StateRecorded.
	ErrStatePending = errors.New("chandylamport: state recording pending")
	// ErrTooManySnapshots: a process or the collector already tracks as many snapshots as its
	// limit allows.
	ErrTooManySnapshots = errors.New("chandylamport: too many snapshots")
	// ErrDuplicateReport: a process reported (or aborted) the same snapshot twice.
	ErrDuplicateReport = errors.New("chandylamport: duplicate report")
	// ErrBadReport: a report's channel states do not match the reporting process's inputs.
	ErrBadReport = errors.New("chandylamport: bad report")
	// ErrDuplicateSnapshot: the collector was asked to start a snapshot it already tracks.
	ErrDuplicateSnapshot = errors.New("chandylamport: duplicate snapshot")
)
