package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// sinkWriterKinds are the kinds a task traces when it writes to a sink.
var sinkWriterKinds = writeKinds | kindsOf(trace.KindSinkCommit, trace.KindSinkUpsert)

// unfinishedJob says why output missing at the end of the trace may still come: the job had
// not finished. A job has finished when every task the trace shows in its lifecycle, and
// every task that wrote to a sink, has task.finish as its last lifecycle event. Before that,
// a record not yet committed is not lost: a restore may replay it and a later notification
// may commit it. Whether the job had to finish by then is for liveness to judge, not the
// output properties. It returns "" for a finished job.
func unfinishedJob(ix *traceIndex) string {
	jobs := newJobLifecycle(ix)
	var writers []string
	wrote := map[string]bool{}
	for i := range ix.only(lifecycleKinds | sinkWriterKinds) {
		e := &ix.events[i]
		jobs.observe(e)
		if !lifecycleKinds.has(e.Kind) && !wrote[e.Task] {
			wrote[e.Task] = true
			writers = append(writers, e.Task)
		}
	}
	for _, task := range writers {
		if last := jobs.last[task]; last != trace.KindTaskFinish {
			return fmt.Sprintf("sink task %s did not finish", task)
		}
	}
	if !jobs.allFinished() {
		return "the job did not finish (some task's last lifecycle event is not task.finish)"
	}
	return ""
}

// missingOutput counts the expected records not committed (often enough) by the end of a
// trace whose job had not finished, and that may still come.
type missingOutput struct {
	count int
	first string
}

// mayCome reports whether record k, committed less often than expected, may still come, and
// counts it if so. Only a finished job's shortfall is a loss, but for one that a commit
// already made vanish (it made none of its transaction's records visible): no later event
// brings those back.
func (m *missingOutput) mayCome(events []trace.Event, out *committedOutput, k int) bool {
	r := &out.records[k]
	if out.unfinished == "" {
		return false
	}
	if r.lastWrite >= 0 && out.txns[events[r.lastWrite].Txn].zeroCommit >= 0 {
		return false
	}
	if m.count == 0 || r.id < m.first {
		m.first = r.id
	}
	m.count++
	return true
}

// judged is res with the records that may still come in its note. A pass with such records
// is unknown: the output was not all there to judge.
func (m *missingOutput) judged(res Result, out *committedOutput) Result {
	if m.count == 0 {
		return res
	}
	note := fmt.Sprintf("%d expected record(s) (first %q) not committed when the trace ends: %s, so they may still come and are not judged lost (liveness judges whether the job had to finish)",
		m.count, m.first, out.unfinished)
	if res.Verdict == VerdictPass {
		return unknownResult(res.Property, note)
	}
	res.Note = joinNote(res.Note, note)
	return res
}
