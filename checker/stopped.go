package checker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// A job that stop-with-savepoint ended (job.finish with attr stop) owes the output of
// its input up to the savepoint's cut, not the whole reference: each source stopped at
// the offsets its snapshot for the savepoint lists (snapshot.taken, attr stop), and a
// record of the reference is owed if and only if the source record it comes from
// (Expected.Split and Offset) lies before that offset. A job that did not stop owes it
// all, whatever stops were tried and failed.

// jobEndKinds are the events that say whether the job ended by a stop: job.finish,
// task.finish (either may name the stop) and the restarts after which the job runs again.
var jobEndKinds = kindsOf(trace.KindJobFinish, trace.KindTaskFinish, trace.KindJobFailover, trace.KindJobResubmit)

// stoppedBy returns the stop-with-savepoint that ended the job: the one the last job.finish
// names, unless the job ran again after it (a failover, a resubmission); 0 if none. A task
// that exited for a stop while no job.finish says the job ended there leaves it unsaid:
// why names what is missing.
func stoppedBy(ix *traceIndex) (stop uint64, why string) {
	var taskStop uint64
	for i := range ix.only(jobEndKinds) {
		e := &ix.events[i]
		v, named := e.Attr(trace.AttrStop)
		switch e.Kind {
		case trace.KindJobFinish:
			stop, taskStop = 0, 0
			if named {
				stop, _ = strconv.ParseUint(v, 10, 64)
			}
		case trace.KindTaskFinish:
			if named {
				taskStop, _ = strconv.ParseUint(v, 10, 64)
			}
		default:
			stop, taskStop = 0, 0
		}
	}
	if stop == 0 && taskStop != 0 {
		return 0, fmt.Sprintf("tasks exited for stop-with-savepoint %d, but no job.finish says the job ended there", taskStop)
	}
	return stop, ""
}

// stopOffsets returns the offset of every split at stop-with-savepoint stop, from the
// sources' snapshot.taken (a finished source's snapshot.carried); a split listed twice (a
// source's snapshot taken again after a restore) keeps the last. A split source's split
// that the enumerator still held (the stop's checkpoint.trigger, attr unassigned) stopped
// before its first record.
func stopOffsets(ix *traceIndex, stop uint64) (map[string]int64, error) {
	offsets := map[string]int64{}
	for i := range ix.only(kindsOf(trace.KindSnapshotTaken, trace.KindSnapshotCarried, trace.KindCheckpointTrigger)) {
		e := &ix.events[i]
		if e.CP == stop && e.Kind == trace.KindCheckpointTrigger {
			for _, split := range splitItems(e, trace.AttrUnassigned) {
				offsets[split] = 0
			}
			continue
		}
		v, ok := e.Attr(trace.AttrStop)
		if e.CP != stop || !ok || v == "" {
			continue // a reader that held no split lists none
		}
		for _, item := range strings.Split(v, trace.ListSeparator) {
			split, off, found := strings.Cut(item, "=")
			n, err := strconv.ParseInt(off, 10, 64)
			if !found || err != nil || n < 0 {
				return nil, fmt.Errorf("%s's %s for %d lists %q, not split=offset", e.Task, e.Kind, stop, item)
			}
			offsets[split] = n
		}
	}
	if len(offsets) == 0 {
		return nil, fmt.Errorf("no source's snapshot for %d lists where it stopped (attr stop)", stop)
	}
	return offsets, nil
}

// owedOutput is the output a trace owes: the reference's, cut where a stop-with-savepoint
// ended the job. Where the trace or the reference cannot say what a stopped job owes, the
// output is nil and unknown says why, so that the output properties are unknown rather
// than judged against the whole input.
type owedOutput struct {
	ref     Reference
	unknown string
	// stop is the stop-with-savepoint that ended the job, 0 if none; beyond are the
	// reference's records from past its cut, which no sink may commit, bar the upserts an
	// earlier attempt sent before the attempt that took the stop began, at event index
	// since (-1: the first attempt). A commit past the cut is never an earlier attempt's:
	// the restore that followed it was from a checkpoint at least as new as the commit.
	stop   uint64
	beyond map[string]bool
	since  int
}

// why is why the output properties cannot judge o: nothing is expected.
func (o owedOutput) why() string {
	if o.unknown != "" {
		return o.unknown
	}
	return "the reference has no expected output"
}

// stoppedReference returns the output ref owes in the trace ix indexes.
func stoppedReference(ix *traceIndex, ref Reference) owedOutput {
	stop, why := stoppedBy(ix)
	if why != "" && ref.Output != nil {
		return withoutOutput(ref, why)
	}
	if stop == 0 || ref.Output == nil {
		return owedOutput{ref: ref}
	}
	offsets, err := stopOffsets(ix, stop)
	if err != nil {
		return withoutOutput(ref, fmt.Sprintf("the job stopped with savepoint %d, but %v", stop, err))
	}
	owed := make(map[string]Expected, len(ref.Output))
	beyond := map[string]bool{}
	for rid, want := range ref.Output {
		if want.Split == "" {
			return withoutOutput(ref, fmt.Sprintf("the job stopped with savepoint %d, but the reference does not say which source record %q comes from", stop, rid))
		}
		stopped, ok := offsets[want.Split]
		if !ok {
			return withoutOutput(ref, fmt.Sprintf("the job stopped with savepoint %d, but no source says where split %s stopped", stop, want.Split))
		}
		if want.Offset < stopped {
			owed[rid] = want
		} else {
			beyond[rid] = true
		}
	}
	ref.Output = owed
	return owedOutput{ref: ref, stop: stop, beyond: beyond, since: attemptStart(ix, stop)}
}

// restartKinds are the events after which the job runs again from a checkpoint.
var restartKinds = kindsOf(trace.KindJobFailover, trace.KindCoordinatorRecover, trace.KindJobResubmit, trace.KindCheckpointTrigger)

// attemptStart returns the index of the last restart of the job before stop-with-savepoint
// stop was triggered, -1 if none. An earlier attempt may have read past the stop's cut
// and made it visible where a sink writes at once (an idempotent sink's upserts); the
// attempt that took the stop may not.
func attemptStart(ix *traceIndex, stop uint64) int {
	since := -1
	for i := range ix.only(restartKinds) {
		e := &ix.events[i]
		if e.Kind == trace.KindCheckpointTrigger {
			if e.CP == stop && isStopTrigger(e) {
				break
			}
			continue
		}
		since = i
	}
	return since
}

// beyondCut returns the violations of output.ends-at-the-stop: the records committed that
// come from past the cut of the stop-with-savepoint that ended the job.
func (o owedOutput) beyondCut(p Property, events []trace.Event, out *committedOutput) []Violation {
	var vs []Violation
	for k := range out.records {
		r := &out.records[k]
		if r.count == 0 || !o.beyond[r.id] {
			continue
		}
		at, ok := out.overflow[k]
		if r.lastUpsert >= 0 {
			at, ok = r.lastUpsert, true
			if o.since >= 0 && sentBy(&events[at]) <= events[o.since].T {
				continue // an earlier attempt's, which read further before the job went back
			}
		}
		e := lastEvent(events)
		if ok {
			e = &events[at]
		}
		v := violationAt(p, e, "record %q committed, but it comes from past where its source stopped for stop-with-savepoint %d, which ended the job", r.id, o.stop)
		v.Rule = ruleOutputEndsAtStop
		vs = append(vs, v)
	}
	return vs
}

// sentBy is when the write that e made visible was sent: its start attribute, which a
// store that makes writes visible as they land sets, else e's own time.
func sentBy(e *trace.Event) int64 {
	if start, ok := intAttr(e, trace.AttrStart); ok {
		return start
	}
	return e.T
}

func withoutOutput(ref Reference, why string) owedOutput {
	ref.Output = nil
	return owedOutput{ref: ref, unknown: why}
}
