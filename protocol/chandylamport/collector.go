package chandylamport

import (
	"fmt"
	"slices"
)

// Collector assembles global snapshots from the processes' answers (Reports and Aborts). It
// is a value the host steps, like Process: it performs no I/O. The host starts each snapshot
// at the collector when it initiates it, then hands over every Report and Abort the processes
// emit; the report that completes a snapshot returns the GlobalSnapshot.
//
// A snapshot stays with the collector until every process of the graph has answered it, even
// after an Abort, so that a duplicate answer is still recognised; then the collector forgets
// it. Answers for a snapshot it does not hold are errors (ErrUnknownSnapshot): with a correct
// host they cannot happen.
type Collector[S, M any] struct {
	graph      *Graph
	maxPending int
	pending    map[SnapshotID]*assembly[S, M]
}

// assembly is the collector's record of one snapshot while answers come in.
type assembly[S, M any] struct {
	answered map[ProcessID]bool
	reports  []Report[S, M] // dropped once aborted
	aborted  bool
}

//go:generate go run ../internal/enumgen -o enum_string.go Status::Status

// Status is what the collector knows about a snapshot. Its String method is
// generated (enum_string.go).
type Status int

const (
	// StatusUnknown: never started, or finished (completed, or aborted and fully answered).
	StatusUnknown Status = iota
	// StatusPending: started, not every process has answered, no Abort yet.
	StatusPending
	// StatusAborted: some process aborted it; the collector waits for the remaining answers.
	StatusAborted
)

// NewCollector returns a collector for the processes of g that holds at most maxPending
// snapshots at once (zero means DefaultMaxConcurrent). Keep it at most the processes'
// MaxConcurrent (see Config).
func NewCollector[S, M any](g *Graph, maxPending int) (*Collector[S, M], error) {
	maxPending, err := limit("maxPending", maxPending, DefaultMaxConcurrent)
	if err != nil {
		return nil, err
	}
	return &Collector[S, M]{graph: g, maxPending: maxPending, pending: make(map[SnapshotID]*assembly[S, M])}, nil
}

// Start makes the collector expect answers for id. It fails with ErrDuplicateSnapshot if id
// is held already and ErrTooManySnapshots if maxPending snapshots are held; the host should
// then not initiate the snapshot.
func (c *Collector[S, M]) Start(id SnapshotID) error {
	if _, ok := c.pending[id]; ok {
		return fmt.Errorf("%w: the collector holds %s already", ErrDuplicateSnapshot, id)
	}
	if c.Full() {
		return fmt.Errorf("%w: the collector cannot start %s: it is at its limit of %d held snapshots", ErrTooManySnapshots, id, c.maxPending)
	}
	c.pending[id] = &assembly[S, M]{answered: make(map[ProcessID]bool, len(c.graph.processes))}
	return nil
}

// AddReport takes one process's report. When it is the last answer of a snapshot that no
// process aborted, it returns the assembled snapshot and true. It fails, changing nothing,
// with ErrUnknownProcess, ErrUnknownSnapshot, ErrDuplicateReport, or ErrBadReport when the
// report's channels are not exactly the process's incoming channels in the graph.
func (c *Collector[S, M]) AddReport(r Report[S, M]) (GlobalSnapshot[S, M], bool, error) {
	a, err := c.admit(r.Snapshot, r.Process, "report")
	if err != nil {
		return GlobalSnapshot[S, M]{}, false, err
	}
	if err := c.checkChannels(r); err != nil {
		return GlobalSnapshot[S, M]{}, false, err
	}
	a.answered[r.Process] = true
	if !a.aborted {
		a.reports = append(a.reports, r)
	}
	return c.finishIfAnswered(r.Snapshot, a)
}

// AddAbort takes one process's abort: the snapshot will not complete. It fails, changing
// nothing, with ErrUnknownProcess, ErrUnknownSnapshot or ErrDuplicateReport.
func (c *Collector[S, M]) AddAbort(ab Abort) error {
	a, err := c.admit(ab.Snapshot, ab.Process, "abort")
	if err != nil {
		return err
	}
	a.answered[ab.Process] = true
	a.aborted = true
	a.reports = nil
	_, _, err = c.finishIfAnswered(ab.Snapshot, a)
	return err
}

// Full reports whether the collector holds as many snapshots as its limit allows, so that a
// host can ask before it initiates a snapshot whose id it does not know yet.
func (c *Collector[S, M]) Full() bool { return len(c.pending) >= c.maxPending }

// Status returns what the collector knows about id.
func (c *Collector[S, M]) Status(id SnapshotID) Status {
	a, ok := c.pending[id]
	switch {
	case !ok:
		return StatusUnknown
	case a.aborted:
		return StatusAborted
	}
	return StatusPending
}

// Pending returns the snapshots the collector holds, sorted.
func (c *Collector[S, M]) Pending() []SnapshotID {
	ids := make([]SnapshotID, 0, len(c.pending))
	for id := range c.pending {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareSnapshotIDs)
	return ids
}

// admit checks that an answer of process for snapshot id is expected.
func (c *Collector[S, M]) admit(id SnapshotID, process ProcessID, kind string) (*assembly[S, M], error) {
	if !c.graph.Has(process) {
		return nil, fmt.Errorf("%w: %s for %s from %q, which is not in the graph", ErrUnknownProcess, kind, id, process)
	}
	a, ok := c.pending[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s for %s from %s, which the collector does not hold (never started, or finished)", ErrUnknownSnapshot, kind, id, process)
	}
	if a.answered[process] {
		return nil, fmt.Errorf("%w: %s for %s from %s, which answered it already", ErrDuplicateReport, kind, id, process)
	}
	return a, nil
}

// checkChannels checks that r records exactly the reporting process's incoming channels.
func (c *Collector[S, M]) checkChannels(r Report[S, M]) error {
	inputs := c.graph.inputs[r.Process]
	if len(r.Channels) != len(inputs) {
		return fmt.Errorf("%w: %s records %d channels, but %s has %d incoming channels", ErrBadReport, r.Snapshot, len(r.Channels), r.Process, len(inputs))
	}
	for i, from := range inputs {
		if want := (Channel{From: from, To: r.Process}); r.Channels[i].Channel != want {
			return fmt.Errorf("%w: %s by %s records channel %s where %s belongs", ErrBadReport, r.Snapshot, r.Process, r.Channels[i].Channel, want)
		}
	}
	return nil
}

// finishIfAnswered forgets id once every process has answered, and assembles the snapshot
// unless it was aborted.
func (c *Collector[S, M]) finishIfAnswered(id SnapshotID, a *assembly[S, M]) (GlobalSnapshot[S, M], bool, error) {
	if len(a.answered) < len(c.graph.processes) {
		return GlobalSnapshot[S, M]{}, false, nil
	}
	delete(c.pending, id)
	if a.aborted {
		return GlobalSnapshot[S, M]{}, false, nil
	}
	if len(a.reports) != len(c.graph.processes) {
		panic(fmt.Sprintf("chandylamport: collector completes %s with %d reports for %d processes", id, len(a.reports), len(c.graph.processes)))
	}
	g := GlobalSnapshot[S, M]{
		ID:       id,
		States:   make([]ProcessState[S], 0, len(a.reports)),
		Channels: make([]ChannelState[M], 0, len(c.graph.channels)),
	}
	slices.SortFunc(a.reports, func(x, y Report[S, M]) int { return compareProcessIDs(x.Process, y.Process) })
	for _, r := range a.reports {
		g.States = append(g.States, ProcessState[S]{Process: r.Process, State: r.State})
		g.Channels = append(g.Channels, r.Channels...)
	}
	slices.SortFunc(g.Channels, func(x, y ChannelState[M]) int { return compareChannels(x.Channel, y.Channel) })
	return g, true, nil
}
