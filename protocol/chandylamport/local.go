package chandylamport

import "fmt"

// localSnapshot is one process's part of one snapshot while the process tracks it.
type localSnapshot[S, M any] struct {
	id            SnapshotID
	state         S
	stateRecorded bool
	// markerSeen holds, per input, whether that channel has delivered this snapshot's marker;
	// waiting counts the inputs that have not.
	markerSeen []bool
	waiting    int
	// messages holds, per input, what has been recorded on that channel. Nil once aborted.
	messages [][]M
	// abort is set when a channel overflowed; the snapshot then records nothing more and
	// answers with this Abort instead of a Report.
	abort *Abort
}

// recordingInput reports whether s records messages that arrive on input i.
func (s *localSnapshot[S, M]) recordingInput(i int) bool {
	return s.abort == nil && !s.markerSeen[i]
}

// begin starts tracking a snapshot at the moment the process records it: the process asks for
// its state and sends a marker on every outgoing channel (the paper's marker sending rule),
// then records every incoming channel except closedInput (the one that delivered the first
// marker, whose state is empty; -1 when the process records spontaneously).
func (p *Process[S, M]) begin(id SnapshotID, closedInput int) {
	if len(p.live) >= p.maxConcurrent {
		panic(fmt.Sprintf("chandylamport: %s begins %s while tracking %d snapshots, limit %d", p.id, id, len(p.live), p.maxConcurrent))
	}
	if id.Seq <= p.recordedUpTo[id.Origin] {
		panic(fmt.Sprintf("chandylamport: %s begins %s after recording %s#%d", p.id, id, id.Origin, p.recordedUpTo[id.Origin]))
	}
	s := &localSnapshot[S, M]{
		id:         id,
		markerSeen: make([]bool, len(p.inputs)),
		waiting:    len(p.inputs),
		messages:   make([][]M, len(p.inputs)),
	}
	p.recordedUpTo[id.Origin] = id.Seq
	p.live = append(p.live, s)
	for i := range p.inputs {
		p.recordingCount[i]++
	}
	if closedInput >= 0 {
		p.closeInput(s, closedInput)
	}
	p.pending = s
	p.ready = append(p.ready, RecordState{Snapshot: id, Process: p.id})
	for _, c := range p.outputs {
		p.ready = append(p.ready, Marker{Snapshot: id, Channel: c})
	}
}

// closeInput stops recording input i for s: its marker has arrived.
func (p *Process[S, M]) closeInput(s *localSnapshot[S, M], i int) {
	if s.markerSeen[i] {
		panic(fmt.Sprintf("chandylamport: %s closes %s for %s twice", p.id, p.inputChannel(i), s.id))
	}
	if s.recordingInput(i) {
		p.recordingCount[i]--
		if p.recordingCount[i] < 0 {
			panic(fmt.Sprintf("chandylamport: %s recording count of %s fell below zero", p.id, p.inputChannel(i)))
		}
	}
	s.markerSeen[i] = true
	s.waiting--
}

// abortSnapshot gives up on s because input i overflowed: it stops recording every channel
// and drops what was recorded. It keeps following the markers (see Abort).
func (p *Process[S, M]) abortSnapshot(s *localSnapshot[S, M], i int) {
	if s.abort != nil {
		panic(fmt.Sprintf("chandylamport: %s aborts %s twice", p.id, s.id))
	}
	for j := range p.inputs {
		if s.recordingInput(j) {
			p.recordingCount[j]--
		}
	}
	s.abort = &Abort{Snapshot: s.id, Process: p.id, Channel: p.inputChannel(i), Limit: p.maxRecorded}
	s.messages = nil
}

// retireIfDone answers for s and stops tracking it once every incoming channel has delivered
// its marker and the host has recorded the state.
func (p *Process[S, M]) retireIfDone(s *localSnapshot[S, M]) {
	if s.waiting > 0 || !s.stateRecorded {
		return
	}
	for i := range p.inputs {
		if !s.markerSeen[i] {
			panic(fmt.Sprintf("chandylamport: %s retires %s with %s still open", p.id, s.id, p.inputChannel(i)))
		}
	}
	at := -1
	for k, live := range p.live {
		if live == s {
			at = k
		}
	}
	if at < 0 {
		panic(fmt.Sprintf("chandylamport: %s retires %s, which it does not track", p.id, s.id))
	}
	p.live = append(p.live[:at], p.live[at+1:]...)
	if s.abort != nil {
		p.ready = append(p.ready, *s.abort)
		return
	}
	report := Report[S, M]{Snapshot: s.id, Process: p.id, State: s.state, Channels: make([]ChannelState[M], len(p.inputs))}
	for i := range p.inputs {
		report.Channels[i] = ChannelState[M]{Channel: p.inputChannel(i), Messages: s.messages[i]}
	}
	p.ready = append(p.ready, report)
}

// find returns the live snapshot with the given id, or nil.
func (p *Process[S, M]) find(id SnapshotID) *localSnapshot[S, M] {
	for _, s := range p.live {
		if s.id == id {
			return s
		}
	}
	return nil
}

// inputChannel returns input i as a channel into this process.
func (p *Process[S, M]) inputChannel(i int) Channel {
	return Channel{From: p.inputs[i], To: p.id}
}
