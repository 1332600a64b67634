package scenarios

import (
	"fmt"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/trace"
)

// PropertyQuiet names the harness's one judgement outside the trace: a finished job goes
// quiet. Once a bounded job has finished (every task's final snapshot is in a completed
// checkpoint and every task has exited), its coordinator has nothing left to ask and nothing
// left to repeat: no trigger, no barrier, no re-sent notification. What it may still send is
// news: a checkpoint that was already persisting when the last task exited (concurrent
// checkpoints carry the tasks' final snapshots) can complete after the finish, and its
// completion is announced once to each task, which the coordinator cannot yet know has
// exited. A checkpoint persisting at the finish may as well fail after it (its metadata
// write fails), and its abort is news too, even below a completion already announced. So
// after the finish the coordinator may send each task one notification of each checkpoint
// above the highest it had announced before the finish, or that ended (completed or aborted
// in the trace) after the finish, and nothing else. A
// coordinator that sends more is running work it should have dropped, a timer or a pending
// request that outlived what it was for: the leak of FLINK-5962, where Flink left each
// checkpoint's expiry timer queued after the checkpoint ended, shows here as re-sent
// completions.
//
// It is judged here and not by package checker because the evidence is not in the trace:
// a message to an exited task is lost before it reaches a link, so it leaves no event, and
// a trace that showed every send would cost a line per buffer. The simulation sees every
// send of a live process (simenv's send observer) and the engine says when the job
// finished. The rule binds the coordinator that saw the finish: one that crashes afterwards
// is replaced by an incarnation that recovers and may run the job again from its latest
// checkpoint, and that incarnation is held to the rule once the job it runs has finished in
// turn. Like the invariant violation, no scenario names or expects it. A run whose job
// never finished had nothing to keep quiet: the property is then listed as unexercised,
// never passed.
const PropertyQuiet checker.Property = "quiet"

// quietWatch watches the coordinator's sends for one run.
type quietWatch struct {
	// finished reports whether the job has finished (engine.Runtime.Finished), now the
	// virtual time; rec is the run's recorder, whose events the watch also sees.
	finished func() bool
	now      func() int64
	rec      *trace.Recorder
	// announcedBefore is the highest checkpoint the coordinator announced (a notification
	// of completion or abort) before the job finished; announcedAfter the notifications it
	// sent after, by task and checkpoint.
	announcedBefore protocol.CheckpointID
	announcedAfter  map[announcement]bool
	// endedAfter holds the checkpoints whose checkpoint.complete or checkpoint.abort came
	// after the finish: their notifications are news whatever their id.
	endedAfter map[protocol.CheckpointID]bool
	// replaced: the coordinator crashed, and the finish seen so far binds its successor
	// only after the job has been seen unfinished and then finished again.
	replaced bool
	// judged: some coordinator was seen with the job finished, so the rule had work.
	judged bool
	// violations are the first sends that broke the rule (at most MaxViolations), omitted
	// counts the rest.
	violations []checker.Violation
	omitted    int
}

// announcement is one notification: to whom, of which checkpoint.
type announcement struct {
	to string
	cp protocol.CheckpointID
}

// watchQuiet installs a quietWatch on job's sends and on rec's events (its crashes).
func watchQuiet(job *simenv.Job, rec *trace.Recorder) *quietWatch {
	q := newQuietWatch(job.Runtime.Finished, func() int64 { return job.Kernel.Now().Nanoseconds() }, rec)
	job.Env.SetSendObserver(q.sent)
	return q
}

func newQuietWatch(finished func() bool, now func() int64, rec *trace.Recorder) *quietWatch {
	q := &quietWatch{finished: finished, now: now, rec: rec}
	rec.Watch(q.event)
	return q
}

// event notes the checkpoints that end after the finish, and starts over at a coordinator
// crash: the next incarnation announces afresh.
func (q *quietWatch) event(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
		if q.finished() && !q.replaced {
			if q.endedAfter == nil {
				q.endedAfter = map[protocol.CheckpointID]bool{}
			}
			q.endedAfter[protocol.CheckpointID(e.CP)] = true
		}
	case trace.KindCoordinatorCrash:
		if q.finished() && !q.replaced {
			q.judged = true // its window, from the finish to the crash, was watched
		}
		q.replaced = true
		q.announcedBefore, q.announcedAfter, q.endedAfter = 0, nil, nil
	}
}

func (q *quietWatch) sent(from, to string, msg any) {
	if from != engine.CoordinatorName {
		return
	}
	m, ok := msg.(*protocol.Message)
	notification := ok && m.Type != protocol.MsgTrigger
	finished := q.finished()
	if q.replaced && !finished {
		q.replaced = false
	}
	if !finished || q.replaced {
		if notification {
			q.announcedBefore = max(q.announcedBefore, m.Checkpoint)
		}
		return
	}
	q.judged = true
	if notification && (m.Checkpoint > q.announcedBefore || q.endedAfter[m.Checkpoint]) {
		key := announcement{to: to, cp: m.Checkpoint}
		if !q.announcedAfter[key] {
			if q.announcedAfter == nil {
				q.announcedAfter = map[announcement]bool{}
			}
			q.announcedAfter[key] = true
			return
		}
	}
	if len(q.violations) == MaxViolations {
		q.omitted++
		return
	}
	what := fmt.Sprintf("a %s message to %s", engine.Classify(msg), to)
	if ok {
		what = m.String()
	}
	v := checker.Violation{
		Property: PropertyQuiet,
		T:        q.now(),
		Task:     engine.CoordinatorName,
		Message:  "the job had finished, yet the coordinator sent " + what,
	}
	if events := q.rec.Events(); len(events) > 0 {
		v.Seq = events[len(events)-1].Seq // the send is not in the trace: pin it to the last event before it
	}
	q.violations = append(q.violations, v)
}

// judge adds the watch's verdict to res, whose checkers have judged it already.
func (q *quietWatch) judge(res *Result) {
	switch {
	case q.judged || q.finished() && !q.replaced:
	case q.replaced:
		res.Unexercised = append(res.Unexercised, string(PropertyQuiet)+" (the coordinator crashed and the job did not finish under its successor)")
		return
	default:
		res.Unexercised = append(res.Unexercised, string(PropertyQuiet)+" (the job did not finish, so nothing had to go quiet)")
		return
	}
	if len(q.violations) == 0 {
		return
	}
	res.fail(PropertyQuiet, q.violations, q.omitted)
}
