package checker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// TriggerPacing checks the coordinator's decisions to trigger against the job's policy
// (Reference.Policy), as Flink's CheckpointRequestDecider and periodic scheduler make them:
//
//   - trigger.min-pause: a periodic checkpoint is not decided within MinPauseNanos of the
//     latest checkpoint completion of the same coordinator incarnation.
//   - trigger.max-concurrent: a trigger finds fewer than MaxConcurrent checkpoints
//     pending, savepoints included; a savepoint whose barriers are aligned (modes aligned
//     and at-least-once) may be forced through, as Flink forces it.
//   - trigger.interval: the k-th periodic trigger of a run of the schedule is decided no
//     sooner than MinPauseNanos plus k-1 intervals after the schedule (re)started.
//   - trigger.when-asked: a checkpoint outside the schedule answers a request, or is the
//     job's final one (judgeAsked).
//
// Only triggers that say periodic=true are periodic: a checkpoint asked for outside the
// schedule and a savepoint are not paced by the pause or the interval. A trigger is judged
// where it was decided, its start attribute (else its own time): a checkpoint that
// completes while the next one waits for its id did not precede the decision. A rule whose
// settings the reference does not give is not judged, and the verdict is then unknown
// unless another rule failed; without any trigger it is unknown or unexercised
// (withoutTriggers).
func TriggerPacing(events []trace.Event, ref Reference) Result {
	return triggerPacing(newTraceIndex(events), ref)
}

// The rules TriggerPacing judges, as their violations name them.
const (
	ruleMinPause      = "trigger.min-pause"
	ruleMaxConcurrent = "trigger.max-concurrent"
	ruleInterval      = "trigger.interval"
)

// pacingKinds are the kinds TriggerPacing reacts to.
var pacingKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort,
	trace.KindCoordinatorCrash, trace.KindJobFailover)

// pacingMissing names the settings of p that trigger-pacing needs and p does not give, as a
// reference file spells them.
func pacingMissing(p Policy) []string {
	var missing []string
	if p.IntervalNanos == nil {
		missing = append(missing, "policy.interval_ns")
	}
	if p.MinPauseNanos == nil {
		missing = append(missing, "policy.min_pause_ns")
	}
	if p.MaxConcurrent == 0 {
		missing = append(missing, "policy.max_concurrent")
	}
	if p.Mode == "" {
		missing = append(missing, "policy.mode")
	}
	return missing
}

func triggerPacing(ix *traceIndex, ref Reference) Result {
	missing := pacingMissing(ref.Policy)
	if len(missing) == 4 {
		return unknownResult(PropTriggerPacing, "the reference gives no checkpoint policy ("+strings.Join(missing, ", ")+")")
	}
	if res, none := withoutTriggers(ix, PropTriggerPacing); none {
		return res
	}
	j := newPacingJudge(ref.Policy, ix.events)
	for i := range ix.only(pacingKinds) {
		j.observe(&ix.events[i])
	}
	res := newResult(PropTriggerPacing, append(j.violations, judgeAsked(ix, ref.Policy)...))
	switch {
	case len(missing) > 0:
		note := "the reference gives no " + strings.Join(missing, ", ") + ": the rules that need it were not judged"
		if res.Verdict != VerdictFail {
			return unknownResult(PropTriggerPacing, note)
		}
		res.Note = note
	case j.periodicSeen == 0:
		res.Note = "no checkpoint.trigger says periodic=true: the pause and the interval had no trigger to judge"
	}
	return res
}

// pacingJudge follows the triggers of one trace.
type pacingJudge struct {
	policy Policy
	// forced: the mode's savepoints are aligned, and Flink forces them past MaxConcurrent.
	forced bool
	// pending are the checkpoints triggered and not ended, of the running coordinator
	// incarnation, in trigger order; savepoints mark the savepoints among every trigger.
	pending    []uint64
	savepoints map[uint64]bool
	stops      map[uint64]bool // the stop-with-savepoints among the savepoints
	// completions are the checkpoint.complete events (savepoints left out) of the running
	// incarnation, in trace order.
	completions []*trace.Event
	// schedule is the running periodic schedule: started at scheduleAt, by since (nil: the
	// coordinator's first start), and periodic triggers decided in it so far.
	scheduleAt   int64
	since        *trace.Event
	periodic     int
	periodicSeen int
	violations   []Violation
}

func newPacingJudge(p Policy, events []trace.Event) *pacingJudge {
	// The first incarnation starts no later than the trace, and virtual time starts at 0.
	var start int64
	if len(events) > 0 {
		start = min(0, events[0].T)
	}
	return &pacingJudge{
		policy:     p,
		forced:     p.Mode == "aligned" || p.Mode == "at-least-once",
		savepoints: map[uint64]bool{},
		stops:      map[uint64]bool{},
		scheduleAt: start,
	}
}

func (j *pacingJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		j.trigger(e)
	case trace.KindCheckpointComplete:
		j.end(e.CP)
		if !j.savepoints[e.CP] {
			j.completions = append(j.completions, e)
		}
	case trace.KindCheckpointAbort:
		j.end(e.CP)
	case trace.KindCoordinatorCrash:
		// The next incarnation knows nothing of this one's checkpoints and completions,
		// and starts its own schedule after the crash.
		j.pending, j.completions = nil, nil
		j.restart(e)
	case trace.KindJobFailover:
		// What was pending ended with the failover; the schedule starts again once the
		// job runs, which is after this event.
		j.pending = nil
		j.restart(e)
	}
}

func (j *pacingJudge) restart(e *trace.Event) {
	j.scheduleAt, j.since, j.periodic = e.T, e, 0
}

func (j *pacingJudge) end(cp uint64) {
	for i, id := range j.pending {
		if id == cp {
			j.pending = append(j.pending[:i], j.pending[i+1:]...)
			return
		}
	}
}

func (j *pacingJudge) trigger(e *trace.Event) {
	savepoint := isSavepointTrigger(e)
	if savepoint {
		j.savepoints[e.CP] = true
		j.stops[e.CP] = isStopTrigger(e)
	}
	for _, id := range j.pending {
		if id == e.CP {
			return // a repeated trigger starts nothing new
		}
	}
	j.noneWhileStopping(e, savepoint)
	j.maxConcurrent(e, savepoint)
	j.pending = append(j.pending, e.CP)
	if !isPeriodicTrigger(e) {
		return
	}
	j.periodicSeen++
	decided := decidedAt(e)
	j.minPause(e, decided)
	j.interval(e, decided)
}

const ruleNoneWhileStopping = "trigger.none-while-stopping"

// noneWhileStopping judges a checkpoint's trigger against a pending stop-with-savepoint:
// the coordinator starts none meanwhile, as Flink stops its checkpoint scheduler, so that
// nothing but the savepoint's transactions is committed as the job ends.
func (j *pacingJudge) noneWhileStopping(e *trace.Event, savepoint bool) {
	if savepoint {
		return
	}
	for _, id := range j.pending {
		if j.stops[id] && id < e.CP {
			j.flag(e, ruleNoneWhileStopping, "checkpoint %d triggered while stop-with-savepoint %d was pending", e.CP, id)
			return
		}
	}
}

func (j *pacingJudge) flag(e *trace.Event, rule, format string, args ...any) {
	v := violationAt(PropTriggerPacing, e, format, args...)
	v.Rule = rule
	j.violations = append(j.violations, v)
}

// maxConcurrent judges a trigger against the checkpoints already pending. Flink's decider
// counts every pending checkpoint and savepoint, and lets a forced request (a savepoint in
// a mode whose barriers are aligned) through regardless; a coordinator that queues such a
// savepoint instead is stricter, and keeps the rule too.
func (j *pacingJudge) maxConcurrent(e *trace.Event, savepoint bool) {
	limit := j.policy.MaxConcurrent
	if limit == 0 || j.policy.Mode == "" || savepoint && j.forced {
		return
	}
	if len(j.pending) >= limit {
		ids := make([]string, len(j.pending))
		for i, id := range j.pending {
			ids[i] = strconv.FormatUint(id, 10)
		}
		j.flag(e, ruleMaxConcurrent, "checkpoint %d triggered while %d were pending (%s): max_concurrent is %d",
			e.CP, len(j.pending), listSome(ids), limit)
	}
}

// minPause judges a periodic trigger, decided at decided, against the latest completion
// that came strictly before the decision.
func (j *pacingJudge) minPause(e *trace.Event, decided int64) {
	if j.policy.MinPauseNanos == nil {
		return
	}
	pause := *j.policy.MinPauseNanos
	for i := len(j.completions) - 1; i >= 0; i-- {
		c := j.completions[i]
		if c.T >= decided {
			// Completed while this one waited for its id, after the decision; or at the
			// same instant, where a time cannot say which came first (a coordinator host
			// that resumes takes its overdue tick and the completion at once).
			continue
		}
		if gap := decided - c.T; gap < pause {
			j.flag(e, ruleMinPause, "periodic checkpoint %d was decided %dns after checkpoint %d completed (seq %d): the minimum pause is %dns",
				e.CP, gap, c.CP, c.Seq, pause)
		}
		return
	}
}

// interval judges the k-th periodic trigger of the running schedule: the first comes at
// least MinPause after the schedule started (Flink draws its delay from [MinPause,
// Interval]), and each later one at least an interval after the one before it would have
// been due. Flink may fire a queued request late and the next one on time, and starts the
// schedule anew after a trigger that came too early, so two triggers may be closer than an
// interval; but never more of them than the schedule had turns.
func (j *pacingJudge) interval(e *trace.Event, decided int64) {
	if j.policy.IntervalNanos == nil || j.policy.MinPauseNanos == nil {
		return
	}
	interval, pause := *j.policy.IntervalNanos, *j.policy.MinPauseNanos
	j.periodic++
	if interval == 0 {
		j.flag(e, ruleInterval, "checkpoint %d is periodic, but the job takes no periodic checkpoints (interval 0)", e.CP)
		return
	}
	earliest := addSat(j.scheduleAt, addSat(pause, mulSat(int64(j.periodic-1), interval)))
	if decided < earliest {
		j.flag(e, ruleInterval, "periodic checkpoint %d, the %s of the schedule %s, was decided at t=%d, before t=%d (the minimum pause of %dns, then an interval of %dns per trigger)",
			e.CP, ordinal(j.periodic), j.startedBy(), decided, earliest, pause, interval)
	}
}

// startedBy says what started the running schedule, for messages.
func (j *pacingJudge) startedBy() string {
	switch {
	case j.since == nil:
		return fmt.Sprintf("started at t=%d", j.scheduleAt)
	case j.since.Kind == trace.KindJobFailover:
		return fmt.Sprintf("restarted by the failover at seq %d", j.since.Seq)
	}
	return fmt.Sprintf("started after the coordinator crash at seq %d", j.since.Seq)
}

// isPeriodicTrigger reports whether e is a trigger of the periodic schedule.
func isPeriodicTrigger(e *trace.Event) bool {
	v, ok := e.Attr(trace.AttrPeriodic)
	return ok && v == "true"
}

// decidedAt is when the coordinator decided to trigger e: its start attribute, or e's own
// time without one (or with one after it, which well-formedness reports).
func decidedAt(e *trace.Event) int64 {
	if start, ok := intAttr(e, trace.AttrStart); ok && start <= e.T {
		return start
	}
	return e.T
}

// ordinal writes n as 1st, 2nd, 3rd, 4th, ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// addSat and mulSat are + and * on non-negative durations, stopping at the largest int64
// instead of wrapping round.
func addSat(a, b int64) int64 {
	if b > 0 && a > maxInt64-b {
		return maxInt64
	}
	return a + b
}

func mulSat(a, b int64) int64 {
	if a != 0 && b > maxInt64/a {
		return maxInt64
	}
	return a * b
}

const maxInt64 = 1<<63 - 1
