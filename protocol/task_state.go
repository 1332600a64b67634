package protocol

import (
	"fmt"
	"slices"
)

// inputAction is what Admit answers for one input; kept per input so the
// per-record path is one indexed load.
type inputAction uint8

const (
	inputProcess inputAction = iota
	inputBlock
	inputRecord
)

// ackedWindowStart is the room a task's window of acknowledged checkpoints starts with.
const ackedWindowStart = 16

// alignment is a checkpoint whose barriers the task is still collecting on
// its inputs: blocking them (aligned), recording channel state (unaligned
// after the snapshot), or just counting (at-least-once). Barrier ids on one
// channel strictly increase (every task forwards them in order and channels
// are FIFO), which is what lets a newer barrier on a channel prove that an
// older checkpoint's barrier will never come on it.
type alignment struct {
	id        CheckpointID
	kind      Kind
	mode      Mode
	timestamp Time
	// seen[i]: the barrier arrived on input i.
	seen []bool
	// missing counts open inputs whose barrier has not arrived.
	missing int
	// deadline is when a ModeAlignedWithTimeout alignment switches.
	deadline Time
	// snapshotTaken: the snapshot was requested (unaligned from the
	// first barrier); what remains is recording channel state.
	snapshotTaken bool
	recorded      int
}

// blocking reports whether inputs that delivered the barrier are blocked.
func (a *alignment) blocking() bool {
	return a.mode == ModeAligned || a.mode == ModeAlignedWithTimeout
}

// inflightSnapshot is a snapshot requested from the host and not yet
// reported uploaded or failed.
type inflightSnapshot struct {
	id   CheckpointID
	kind Kind
	// sealed: no more channel state will be recorded for it.
	sealed bool
	final  bool
}

// taskState holds everything behind the Task API.
type taskState struct {
	cfg TaskConfig

	started      bool
	restoredFrom CheckpointID
	lastNotified CheckpointID
	// stopAt is the stop-with-savepoint this task took its snapshot for,
	// until it aborts: a source emits nothing meanwhile, and the task exits
	// once told it completed.
	stopAt   CheckpointID
	finished bool
	// splitsRecv counts the split messages taken, in order; splitInbox
	// holds those that came early or wait for their checkpoint.
	splitsRecv uint64
	splitInbox []Message
	exited     bool
	// firstFinalID is the first checkpoint whose snapshot here was final.
	firstFinalID CheckpointID
	// finishedResendAt is when a finished task waiting to exit tells the
	// coordinator again that it finished (see tellFinished).
	finishedResendAt Time

	inputOpen    []bool
	inputDrained []bool
	openInputs   int
	action       []inputAction

	// staleUpTo is the highest id this task has heard of in any way: a
	// barrier or trigger it started, a cancel marker, an abort, the
	// checkpoint it restored from. Barriers and triggers at or below it
	// are stale: this task either took part already or never will.
	staleUpTo CheckpointID
	// heardInBandUpTo is staleUpTo without the abort notices: the highest id
	// that reached this task as a barrier, a trigger or a cancel marker, or
	// that it restored from. It is what Flink's barrier handler knows as its
	// current checkpoint, which the coordinator's notices do not move.
	heardInBandUpTo CheckpointID
	// sentUpTo is the highest id of a barrier or cancel marker this task
	// sent on its outputs. Ids on a channel never go backwards: a receiver
	// takes a newer id as proof that an older one will not come, so send
	// refuses to break the rule (see checkOutputOrder).
	sentUpTo CheckpointID
	// cancelOwed is the newest checkpoint this task gave up while an older
	// one still aligned here: its cancel marker waits until that one has
	// sent its barrier or marker (see cancelDownstream). 0: none.
	cancelOwed CheckpointID
	// alignments are ordered by id, at most MaxPendingCheckpoints.
	alignments []*alignment
	// recording is the alignment whose channel state is being recorded
	// (at most one: Admit names a single checkpoint).
	recording *alignment
	// spareAlignments are ended alignments kept for the next checkpoint,
	// so that a task allocates none per checkpoint once it has seen as
	// many at once as it will (at most MaxPendingCheckpoints in all).
	// One is reused only when a new alignment starts: a caller may still
	// read an alignment it just ended, as long as no barrier starts
	// another meanwhile.
	spareAlignments []*alignment
	inflight        []inflightSnapshot
	// acked remembers the last acked ids (a window of
	// MaxPendingCheckpoints), so a repeated completion report for an acked
	// snapshot is not mistaken for an abandoned upload and released.
	acked []CheckpointID
	// abortsNotified are ids above lastNotified already passed to the
	// listener as aborted; a bounded window for deduplication.
	abortsNotified []CheckpointID

	ready TaskReady
}

func newTask(cfg TaskConfig) (*Task, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := len(cfg.Inputs)
	t := &Task{taskState{
		cfg:          cfg,
		inputOpen:    make([]bool, n),
		inputDrained: make([]bool, n),
		openInputs:   n,
		action:       make([]inputAction, n),
		// Every task acks; growing the window one append at a time
		// would cost a few allocations per incarnation. A few entries
		// suffice at first: most jobs have few checkpoints pending.
		acked: make([]CheckpointID, 0, min(cfg.MaxPendingCheckpoints, ackedWindowStart)),
	}}
	for i := range t.inputOpen {
		t.inputOpen[i] = true
	}
	return t, nil
}

func (t *taskState) restore(now Time, from CheckpointID, snap TaskSnapshot) error {
	if t.started {
		return ErrAlreadyStarted
	}
	t.started = true
	t.restoredFrom = from
	t.staleUpTo = from
	t.heardInBandUpTo = from
	if snap.Final {
		// The task had finished before the checkpoint: its output is
		// complete and committed by that checkpoint, so it leaves at once.
		t.finished = true
		t.firstFinalID = from
		t.exit()
	}
	return nil
}

// takeReady hands out the outputs gathered since the last call; their
// slices share chunks with later outputs (see outbox.go).
func (t *taskState) takeReady() TaskReady {
	rd := TaskReady{
		Snapshots:     handOut(&t.ready.Snapshots),
		Sends:         handOut(&t.ready.Sends),
		Sealed:        handOut(&t.ready.Sealed),
		Aborted:       handOut(&t.ready.Aborted),
		Released:      handOut(&t.ready.Released),
		Messages:      handOut(&t.ready.Messages),
		Notifications: handOut(&t.ready.Notifications),
		Splits:        handOut(&t.ready.Splits),
		NoMoreSplits:  t.ready.NoMoreSplits,
		Exit:          t.ready.Exit,
	}
	t.ready.Exit, t.ready.NoMoreSplits = false, false
	return rd
}

func (t *taskState) blocked(input int) bool { return t.action[input] == inputBlock }

func (t *taskState) aligning() (CheckpointID, bool) {
	if len(t.alignments) == 0 {
		return 0, false
	}
	return t.alignments[len(t.alignments)-1].id, true
}

func (t *taskState) nextDeadline() Time {
	deadline := NoDeadline
	if t.finished && !t.exited {
		deadline = t.finishedResendAt
	}
	for _, a := range t.alignments {
		if a.mode == ModeAlignedWithTimeout {
			deadline = min(deadline, a.deadline)
		}
	}
	return deadline
}

func (t *taskState) tick(now Time) { t.begin(now) }

// begin starts the handling of an input at time now: after it, Restore is
// refused, and every aligned-with-timeout alignment that timed out by now
// has switched to unaligned. Every input calls it before anything else, so
// a late Tick cannot make the task act on a stale view of time.
func (t *taskState) begin(now Time) {
	t.started = true
	if t.finished && !t.exited && now >= t.finishedResendAt {
		t.tellFinished(now)
	}
	// Each switch removes one timed-out alignment's mode, so this loop
	// runs at most len(t.alignments)+1 times; no allocation on the way.
	for {
		i := slices.IndexFunc(t.alignments, func(a *alignment) bool {
			return a.mode == ModeAlignedWithTimeout && now >= a.deadline
		})
		if i < 0 {
			return
		}
		t.switchToUnaligned(now, t.alignments[i])
	}
}

func (t *taskState) findAlignment(id CheckpointID) *alignment {
	for _, a := range t.alignments {
		if a.id == id {
			return a
		}
	}
	return nil
}

// dropInflight forgets in-flight snapshot i and tells the host to cancel
// its upload (TaskReady.Aborted).
func (t *taskState) dropInflight(i int, reason Reason) {
	s := t.inflight[i]
	t.inflight = slices.Delete(t.inflight, i, i+1)
	t.ready.Aborted = push(t.ready.Aborted, Abort{Checkpoint: s.id, Kind: s.kind, Reason: reason, Task: t.cfg.ID})
}

func (t *taskState) findInflight(id CheckpointID) int {
	for i := range t.inflight {
		if t.inflight[i].id == id {
			return i
		}
	}
	return -1
}

func (t *taskState) checkInput(input int) error {
	if input < 0 || input >= len(t.cfg.Inputs) {
		return fmt.Errorf("%w: input %d of task %s with %d inputs", ErrBadInput, input, t.cfg.ID, len(t.cfg.Inputs))
	}
	if !t.inputOpen[input] {
		return fmt.Errorf("%w: input %s is closed", ErrBadInput, t.cfg.Inputs[input])
	}
	return nil
}

func (t *taskState) send(ev ChannelEvent, priority bool) {
	t.checkOutputOrder(ev)
	t.ready.Sends = grow(t.ready.Sends, len(t.cfg.Outputs))
	for o := range t.cfg.Outputs {
		t.ready.Sends = append(t.ready.Sends, Send{Output: o, Event: ev, Priority: priority})
	}
}
