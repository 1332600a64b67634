package chandylamport

import (
	"fmt"
	"slices"
)

// Default limits, used when a Config leaves a limit at zero.
const (
	DefaultMaxConcurrent         = 4
	DefaultMaxRecordedPerChannel = 1024
)

// Config describes one process: its name, its neighbours and its limits. Graph.Inputs and
// Graph.Outputs give the neighbour lists when the host has the whole graph.
type Config struct {
	ID ProcessID
	// Inputs names the senders of the process's incoming channels; Outputs the receivers of
	// its outgoing channels. Neither may repeat a name or contain ID (no self-loops).
	Inputs  []ProcessID
	Outputs []ProcessID
	// FirstSeq is the Seq of the first snapshot this process initiates (zero means 1). A
	// host that re-creates a process (after a restart) must continue past every Seq the
	// process used before, or the other processes take the new snapshots for old ones.
	FirstSeq uint64
	// MaxConcurrent bounds the snapshots the process tracks at once: from its first record
	// of a snapshot until the last incoming channel delivers that snapshot's marker. Beyond
	// it, Initiate, Join and the first marker of a new snapshot fail with
	// ErrTooManySnapshots. Hosts that let at most N snapshots be in flight system-wide (the
	// Collector's limit) and set MaxConcurrent >= N never see that error: a process stops
	// tracking a snapshot before it answers the collector for it. Zero means
	// DefaultMaxConcurrent.
	MaxConcurrent int
	// MaxRecordedPerChannel bounds the messages recorded on one incoming channel for one
	// snapshot. The message that would exceed it aborts the snapshot at this process (see
	// Abort); the memory recorded for it is released at once. Zero means
	// DefaultMaxRecordedPerChannel.
	MaxRecordedPerChannel int
}

// Process is one participant in the Chandy-Lamport algorithm, as a value the host steps. S is
// the application's recorded state and M its message type; the algorithm never looks inside
// either. A Process is not safe for concurrent use; the host calls it from one goroutine.
//
// Inputs: Initiate, Join, HandleMarker, Receive, StateRecorded. Outputs: Ready. The package
// documentation lists what the host must do with each output and why.
type Process[S, M any] struct {
	id            ProcessID
	inputs        []ProcessID // sorted; an input's position is its index everywhere below
	inputIndex    map[ProcessID]int
	outputs       []Channel // sorted by receiver
	maxConcurrent int
	maxRecorded   int

	// nextSeq is the Seq the next Initiate allocates.
	nextSeq uint64
	// recordedUpTo holds, per origin, the highest Seq this process has recorded. Snapshots of
	// one origin are first recorded in Seq order (see SnapshotID), so a marker at or below it
	// that matches no live snapshot belongs to a finished one: a duplicate.
	recordedUpTo map[ProcessID]uint64
	// live holds the snapshots being tracked, in the order they were first recorded, so that
	// every walk over them is deterministic. At most maxConcurrent.
	live []*localSnapshot[S, M]
	// recordingCount holds, per input, how many live snapshots are recording that channel.
	// Zero is the common case, and lets Receive return without looking at any snapshot.
	recordingCount []int
	// pending is the snapshot whose RecordState the host has not answered yet, or nil.
	pending *localSnapshot[S, M]
	// ready collects outputs until the host takes them with Ready.
	ready []Output
}

// NewProcess checks cfg and returns a process that has recorded nothing yet.
func NewProcess[S, M any](cfg Config) (*Process[S, M], error) {
	if err := cfg.ID.validate(); err != nil {
		return nil, err
	}
	inputs, err := neighbours(cfg.ID, "input", cfg.Inputs)
	if err != nil {
		return nil, err
	}
	outputNames, err := neighbours(cfg.ID, "output", cfg.Outputs)
	if err != nil {
		return nil, err
	}
	maxConcurrent, err := limit("MaxConcurrent", cfg.MaxConcurrent, DefaultMaxConcurrent)
	if err != nil {
		return nil, err
	}
	maxRecorded, err := limit("MaxRecordedPerChannel", cfg.MaxRecordedPerChannel, DefaultMaxRecordedPerChannel)
	if err != nil {
		return nil, err
	}
	p := &Process[S, M]{
		id:             cfg.ID,
		inputs:         inputs,
		inputIndex:     make(map[ProcessID]int, len(inputs)),
		outputs:        make([]Channel, len(outputNames)),
		maxConcurrent:  maxConcurrent,
		maxRecorded:    maxRecorded,
		nextSeq:        max(cfg.FirstSeq, 1),
		recordedUpTo:   make(map[ProcessID]uint64),
		recordingCount: make([]int, len(inputs)),
	}
	for i, from := range inputs {
		p.inputIndex[from] = i
	}
	for i, to := range outputNames {
		p.outputs[i] = Channel{From: cfg.ID, To: to}
	}
	return p, nil
}

// neighbours validates one neighbour list and returns a sorted copy.
func neighbours(self ProcessID, kind string, names []ProcessID) ([]ProcessID, error) {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	for i, n := range sorted {
		if err := n.validate(); err != nil {
			return nil, err
		}
		if n == self {
			return nil, fmt.Errorf("%w: self-loop %s: process %s lists itself as an %s", ErrBadGraph, Channel{self, self}, self, kind)
		}
		if i > 0 && sorted[i-1] == n {
			return nil, fmt.Errorf("%w: process %s lists %s %s twice", ErrBadGraph, self, kind, n)
		}
	}
	return sorted, nil
}

// limit applies a default to a zero limit and rejects negative ones.
func limit(name string, value, fallback int) (int, error) {
	switch {
	case value < 0:
		return 0, fmt.Errorf("%w: %s is %d, want >= 0", ErrBadConfig, name, value)
	case value == 0:
		return fallback, nil
	}
	return value, nil
}

// ID returns the process's name.
func (p *Process[S, M]) ID() ProcessID { return p.id }

// Snapshots returns the ids of the snapshots the process tracks now (recorded, with some
// incoming channel still to deliver the marker), sorted.
func (p *Process[S, M]) Snapshots() []SnapshotID {
	ids := make([]SnapshotID, len(p.live))
	for i, s := range p.live {
		ids[i] = s.id
	}
	slices.SortFunc(ids, compareSnapshotIDs)
	return ids
}

// Ready returns the outputs collected since the last call, in the order the host must carry
// them out, and forgets them. The host calls it after every input that can produce outputs:
// Initiate, Join, HandleMarker and StateRecorded (Receive never produces any).
func (p *Process[S, M]) Ready() []Output {
	out := p.ready
	p.ready = nil
	return out
}
