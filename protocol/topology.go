package protocol

import "strconv"

// Topology is the job graph as the coordinator needs it: which tasks exist
// (every one must acknowledge a checkpoint) and which channels connect them
// (a task whose upstream tasks have all fully finished can no longer receive
// a barrier, so the coordinator triggers it directly).
type Topology struct {
	_ struct{}
	// Tasks lists every task once. Its order is the order of
	// CompletedCheckpoint.Tasks and of broadcast messages.
	Tasks []TaskID
	// Channels lists every data channel. Cycles are allowed in
	// ModeUnaligned and ModeAlignedWithTimeout only (see Cycle and
	// ErrCyclicTopology), and a job with a cycle can take no savepoint and
	// cannot finish bounded input: the tasks on the cycle never see end of
	// data on their back edges.
	Channels []ChannelID
	// SplitSources are the sources whose splits the coordinator's split
	// enumerator hands to their tasks (see "Split sources" in splits.go).
	SplitSources []SplitSource
}

// Validate checks that task ids are unique and non-empty and that every
// channel connects two known tasks.
func (t Topology) Validate() error {
	bad := func(field, problem string) error { return &ConfigError{Field: "Topology." + field, Problem: problem} }
	if len(t.Tasks) == 0 {
		return bad("Tasks", "must not be empty")
	}
	seen := make(map[TaskID]bool, len(t.Tasks))
	for i, id := range t.Tasks {
		if id == "" {
			return bad("Tasks", "task "+strconv.Itoa(i)+" has an empty id")
		}
		if id == CoordinatorTask {
			return bad("Tasks", "task id "+string(id)+" is reserved")
		}
		if seen[id] {
			return bad("Tasks", "duplicate task "+string(id))
		}
		seen[id] = true
	}
	channels := make(map[ChannelID]bool, len(t.Channels))
	for _, c := range t.Channels {
		if !seen[c.From] || !seen[c.To] {
			return bad("Channels", "channel "+c.String()+" names an unknown task")
		}
		if channels[c] {
			return bad("Channels", "duplicate channel "+c.String())
		}
		channels[c] = true
	}
	return t.validateSplits(seen)
}

// Inputs returns the channels that end at task, in Channels order.
func (t Topology) Inputs(task TaskID) []ChannelID {
	var in []ChannelID
	for _, c := range t.Channels {
		if c.To == task {
			in = append(in, c)
		}
	}
	return in
}

// Outputs returns the channels that start at task, in Channels order.
func (t Topology) Outputs(task TaskID) []ChannelID {
	var out []ChannelID
	for _, c := range t.Channels {
		if c.From == task {
			out = append(out, c)
		}
	}
	return out
}
