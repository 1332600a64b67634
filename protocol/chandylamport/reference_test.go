package chandylamport

import "slices"

// refProcess is the dumb reference for Process: the paper's two rules written as directly as
// possible, with maps, no limits, no duplicate detection, and the state passed in with every
// input instead of asked for. The property test feeds it the same inputs as the real process
// and requires the same reports.
type refProcess[S, M any] struct {
	id        ProcessID
	inputs    []ProcessID
	snapshots map[SnapshotID]*refSnapshot[S, M]
	done      map[SnapshotID]bool
}

type refSnapshot[S, M any] struct {
	state    S
	open     map[ProcessID]bool
	recorded map[ProcessID][]M
}

func newRefProcess[S, M any](id ProcessID, inputs []ProcessID) *refProcess[S, M] {
	return &refProcess[S, M]{id: id, inputs: inputs, snapshots: map[SnapshotID]*refSnapshot[S, M]{}, done: map[SnapshotID]bool{}}
}

// record is the marker sending rule: keep the state, open every input. It returns the
// report if there is nothing to wait for.
func (r *refProcess[S, M]) record(id SnapshotID, state S) *Report[S, M] {
	s := &refSnapshot[S, M]{state: state, open: map[ProcessID]bool{}, recorded: map[ProcessID][]M{}}
	for _, in := range r.inputs {
		s.open[in] = true
	}
	r.snapshots[id] = s
	return r.finishIfClosed(id)
}

// marker is the marker receiving rule; state is the process's state now.
func (r *refProcess[S, M]) marker(from ProcessID, id SnapshotID, state S) *Report[S, M] {
	if r.done[id] {
		return nil
	}
	if _, ok := r.snapshots[id]; !ok {
		r.record(id, state)
	}
	delete(r.snapshots[id].open, from)
	return r.finishIfClosed(id)
}

func (r *refProcess[S, M]) receive(from ProcessID, m M) {
	for _, s := range r.snapshots {
		if s.open[from] {
			s.recorded[from] = append(s.recorded[from], m)
		}
	}
}

func (r *refProcess[S, M]) finishIfClosed(id SnapshotID) *Report[S, M] {
	s := r.snapshots[id]
	if len(s.open) > 0 {
		return nil
	}
	delete(r.snapshots, id)
	r.done[id] = true
	report := &Report[S, M]{Snapshot: id, Process: r.id, State: s.state}
	inputs := slices.Sorted(slices.Values(r.inputs))
	for _, in := range inputs {
		report.Channels = append(report.Channels, ChannelState[M]{Channel: Channel{From: in, To: r.id}, Messages: s.recorded[in]})
	}
	return report
}
