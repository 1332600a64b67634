package chandylamport

import "fmt"

// Initiate starts a new snapshot with this process as its origin and returns its id, the
// process's next sequence number. The process records at once: Ready then holds RecordState
// and a Marker for every outgoing channel. The host calls it between two steps of the
// application (not while the application is half-way through consuming a message), starts the
// snapshot at the Collector, and Joins Graph.Joiners(origin) to it in the same step if the
// graph is not strongly connected. It fails with ErrTooManySnapshots, changing nothing, when
// the process already tracks MaxConcurrent snapshots.
func (p *Process[S, M]) Initiate() (SnapshotID, error) {
	if err := p.checkNotPending(); err != nil {
		return SnapshotID{}, err
	}
	id := SnapshotID{Origin: p.id, Seq: p.nextSeq}
	if err := p.checkRoom(id); err != nil {
		return SnapshotID{}, err
	}
	p.nextSeq++
	p.begin(id, -1)
	return id, nil
}

// Join makes the process record snapshot id spontaneously, as if it had initiated it: the
// paper lets any number of processes start the same snapshot. The host uses it for the
// processes that markers from the origin cannot reach (Graph.Joiners), which would otherwise
// never record. To keep duplicate detection sound (SnapshotID), the host joins a process to an
// origin's snapshots in increasing Seq order and before any marker of the snapshot can have
// reached it; joining in the same step as the Initiate does both. It fails with
// ErrAlreadyRecorded when the process recorded id already, ErrTooManySnapshots when it is
// full, ErrUnknownSnapshot when id has Seq 0 or names the process itself as origin (an origin
// records its snapshots in Initiate).
func (p *Process[S, M]) Join(id SnapshotID) error {
	if err := p.checkNotPending(); err != nil {
		return err
	}
	switch {
	case id.Seq == 0:
		return fmt.Errorf("%w: %s cannot join %s: sequence numbers start at 1", ErrUnknownSnapshot, p.id, id)
	case id.Origin == p.id:
		return fmt.Errorf("%w: %s cannot join %s: its own snapshots start with Initiate", ErrUnknownSnapshot, p.id, id)
	case p.find(id) != nil || id.Seq <= p.recordedUpTo[id.Origin]:
		return fmt.Errorf("%w: %s has recorded %s (or a later snapshot of %s) already", ErrAlreadyRecorded, p.id, id, id.Origin)
	}
	if err := p.checkRoom(id); err != nil {
		return err
	}
	p.begin(id, -1)
	return nil
}

// HandleMarker tells the process that m arrived on its channel m.Channel, in FIFO order with
// the application messages on that channel. The first marker of a snapshot makes the process
// record (RecordState, then a Marker on every outgoing channel) with that channel's state
// empty; a later one closes the recording of its channel, and the last one makes the process
// answer with a Report or an Abort. Errors change nothing: ErrUnknownChannel (the channel does
// not end here), ErrDuplicateMarker (the channel delivered this marker before, or the
// snapshot is finished here), ErrUnknownSnapshot (Seq 0, or this process's own snapshot that
// it never initiated), ErrTooManySnapshots (a new snapshot while full: the host let more
// snapshots be in flight than MaxConcurrent, and must treat the process as failed).
func (p *Process[S, M]) HandleMarker(m Marker) error {
	if err := p.checkNotPending(); err != nil {
		return err
	}
	i, ok := p.inputIndex[m.Channel.From]
	if !ok || m.Channel.To != p.id {
		return fmt.Errorf("%w: %s got %s, but %s is not one of its incoming channels", ErrUnknownChannel, p.id, m, m.Channel)
	}
	if m.Snapshot.Seq == 0 {
		return fmt.Errorf("%w: %s got %s: sequence numbers start at 1", ErrUnknownSnapshot, p.id, m)
	}
	if s := p.find(m.Snapshot); s != nil {
		if s.markerSeen[i] {
			return fmt.Errorf("%w: %s got %s twice", ErrDuplicateMarker, p.id, m)
		}
		p.closeInput(s, i)
		p.retireIfDone(s)
		return nil
	}
	if m.Snapshot.Origin == p.id {
		if m.Snapshot.Seq < p.nextSeq {
			return fmt.Errorf("%w: %s got %s after finishing its own snapshot", ErrDuplicateMarker, p.id, m)
		}
		return fmt.Errorf("%w: %s got %s, but never initiated %s", ErrUnknownSnapshot, p.id, m, m.Snapshot)
	}
	if last := p.recordedUpTo[m.Snapshot.Origin]; m.Snapshot.Seq <= last {
		return fmt.Errorf("%w: %s got %s after finishing it (it has recorded up to %s#%d); a duplicated or earlier lost marker, or joins out of order",
			ErrStaleMarker, p.id, m, m.Snapshot.Origin, last)
	}
	if err := p.checkRoom(m.Snapshot); err != nil {
		return err
	}
	p.begin(m.Snapshot, i)
	return nil
}

// Receive tells the process that the application consumed message m from the channel from->p,
// in FIFO order with the markers on that channel. The process keeps m as channel state for
// every snapshot that is recording the channel; when none is, Receive returns at once without
// allocating. A message beyond MaxRecordedPerChannel aborts that snapshot here (see Abort).
// Receive never produces outputs. It fails with ErrUnknownChannel or ErrStatePending.
func (p *Process[S, M]) Receive(from ProcessID, m M) error {
	if p.pending != nil {
		return p.checkNotPending()
	}
	i, ok := p.inputIndex[from]
	if !ok {
		return fmt.Errorf("%w: %s got a message from %s, which has no channel to it", ErrUnknownChannel, p.id, from)
	}
	if p.recordingCount[i] == 0 {
		return nil
	}
	for _, s := range p.live {
		if !s.recordingInput(i) {
			continue
		}
		if len(s.messages[i]) >= p.maxRecorded {
			p.abortSnapshot(s, i)
			continue
		}
		s.messages[i] = append(s.messages[i], m)
	}
	return nil
}

// StateRecorded answers RecordState for snapshot id with the application's state at the
// moment of the request. If every incoming channel has delivered the marker already (always
// so for a process without inputs), Ready then holds the Report. It fails with
// ErrUnknownSnapshot when no RecordState for id is waiting.
func (p *Process[S, M]) StateRecorded(id SnapshotID, state S) error {
	if p.pending == nil || p.pending.id != id {
		return fmt.Errorf("%w: %s was given a state for %s, which it did not ask for", ErrUnknownSnapshot, p.id, id)
	}
	s := p.pending
	p.pending = nil
	s.state = state
	s.stateRecorded = true
	p.retireIfDone(s)
	return nil
}

// checkNotPending refuses inputs while a state request is unanswered: anything the
// application did in between would leak into (or out of) the recorded state.
func (p *Process[S, M]) checkNotPending() error {
	if p.pending != nil {
		return fmt.Errorf("%w: %s waits for StateRecorded of %s", ErrStatePending, p.id, p.pending.id)
	}
	return nil
}

// checkRoom refuses a new snapshot when the process is full.
func (p *Process[S, M]) checkRoom(id SnapshotID) error {
	if len(p.live) >= p.maxConcurrent {
		return fmt.Errorf("%w: %s cannot track %s: it is at its limit of %d tracked snapshots", ErrTooManySnapshots, p.id, id, p.maxConcurrent)
	}
	return nil
}
