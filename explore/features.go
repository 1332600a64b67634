package explore

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Observer watches one run's trace and names what the run reached: its features. A feature
// is a short stable string ("pair:barrier.recv>snapshot.taken", "abort:expired",
// "rule:C3/Reason.expired"); the corpus counts how many runs reached each, and an input
// that reaches one no run reached before is kept. What the features cover:
//
//   - the specification's rules a run gave an occasion to judge (its property was not
//     unexercised), and each rule again with each word of the protocol's vocabulary it
//     covers (checker.Rule.Covers) that the run showed: the model is the specification;
//   - pairs of consecutive event kinds of one task, as a fuzzer counts edges;
//   - fault kinds that fired, abort, decline, failover and sink-abort reasons;
//   - protocol outcomes: checkpoint ids past 9, 99 and 999, checkpoints in flight at
//     once, restores from a savepoint or a checkpoint, coordinator recoveries with and
//     without a completed checkpoint, and how many failovers, aborts and crashes (in
//     AFL's buckets of counts: 1, 2, 3, 4-7, 8-15, ...).
//
// Watch runs on the run's goroutine; an Observer serves one run.
type Observer struct {
	lastKind   map[string]string // task -> its last event's kind
	seen       map[string]bool   // features so far
	savepoints map[uint64]bool   // ids of savepoints triggered
	inFlight   map[uint64]bool   // ids triggered and not yet complete or aborted
	maxFlight  int
	maxDone    uint64
	counts     map[string]int // kind -> events, for the counted kinds
}

// NewObserver returns an observer for one run.
func NewObserver() *Observer {
	return &Observer{lastKind: map[string]string{}, seen: map[string]bool{}, savepoints: map[uint64]bool{},
		inFlight: map[uint64]bool{}, counts: map[string]int{}}
}

// countedKinds are the kinds whose number per run is a feature (bucketed).
var countedKinds = []string{trace.KindJobFailover, trace.KindCheckpointAbort, trace.KindTaskCrash,
	trace.KindCoordinatorRecover, trace.KindSnapshotDecline, trace.KindMarkerSend, trace.KindCheckpointComplete}

// Watch sees one event of the run (scenarios.RunOptions.Watch). It neither keeps nor
// changes the event.
func (o *Observer) Watch(e *trace.Event) {
	if e.Task != "" {
		o.seen["pair:"+o.lastKind[e.Task]+">"+e.Kind] = true
		o.lastKind[e.Task] = e.Kind
	}
	if slices.Contains(countedKinds, e.Kind) {
		o.counts[e.Kind]++
	}
	if e.Reason != "" {
		o.seen["reason:"+e.Kind+"/"+e.Reason] = true
		o.seen["vocab:Reason."+e.Reason] = true
	}
	switch e.Kind {
	case trace.KindFault:
		o.seen["fault:"+e.Fault] = true
	case trace.KindCheckpointTrigger:
		o.trigger(e)
	case trace.KindCheckpointComplete:
		delete(o.inFlight, e.CP)
		o.maxDone = max(o.maxDone, e.CP)
		if o.savepoints[e.CP] {
			o.seen["savepoint:complete"] = true
		}
	case trace.KindCheckpointAbort:
		delete(o.inFlight, e.CP)
	case trace.KindTaskRestore:
		o.restore(e)
	case trace.KindCoordinatorRecover:
		o.seen["coordinator:recover/"+zeroOrNot(e.CP)] = true
		clear(o.inFlight) // the recovered coordinator starts with nothing in flight
	}
	if word, ok := vocabulary[e.Kind]; ok {
		o.seen["vocab:"+word] = true
	}
}

// vocabulary maps the kinds that show a word of the protocol's vocabulary (as
// checker.Rule.Covers names them) to that word.
var vocabulary = map[string]string{
	trace.KindMarkerSend: "Event.cancel-marker", trace.KindBarrierSend: "Event.barrier",
	trace.KindTriggerRecv: "Msg.trigger", trace.KindSnapshotAck: "Msg.ack", trace.KindSnapshotDecline: "Msg.decline",
	trace.KindNotifyComplete: "Msg.notify-complete", trace.KindNotifyAbort: "Msg.notify-aborted",
	trace.KindTaskFinish: "Msg.task-finished", trace.KindStateRelease: "Config.RetainedCheckpoints",
}

func (o *Observer) trigger(e *trace.Event) {
	if v, _ := e.Attr(trace.AttrSavepoint); v == "true" {
		o.savepoints[e.CP] = true
		o.seen["vocab:Kind.savepoint"] = true
	} else {
		o.seen["vocab:Kind.checkpoint"] = true
	}
	o.inFlight[e.CP] = true
	o.maxFlight = max(o.maxFlight, len(o.inFlight))
}

func (o *Observer) restore(e *trace.Event) {
	switch {
	case e.CP == 0:
		o.seen["restore:fresh"] = true
	case o.savepoints[e.CP]:
		o.seen["restore:savepoint"] = true
	default:
		o.seen["restore:checkpoint"] = true
	}
}

func zeroOrNot(cp uint64) string {
	if cp == 0 {
		return "none"
	}
	return "checkpoint"
}

// bucket is AFL's bucket of a count: 1, 2, 3, 4-7, 8-15, 16-31, ... named by its floor.
func bucket(n int) string {
	if n <= 3 {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(1<<(bits.Len(uint(n))-1)) + "+"
}

// Features returns what the run reached, sorted: the trace's features, the outcome's and
// the rules'. plan and res are the run's.
func (o *Observer) Features(plan *scenarios.Plan, res *scenarios.Result) []string {
	f := o.seen
	for _, k := range countedKinds {
		if n := o.counts[k]; n > 0 {
			f["count:"+k+"="+bucket(n)] = true
		}
	}
	for _, n := range []uint64{10, 100, 1000} {
		if o.maxDone >= n {
			f["cp:"+strconv.FormatUint(n, 10)+"+"] = true
		}
	}
	if o.maxFlight > 0 {
		f["inflight:"+bucket(o.maxFlight)] = true
	}
	if o.maxFlight > 1 {
		f["vocab:Config.MaxConcurrent"] = true
	}
	f["vocab:Mode."+plan.Scenario.Mode] = true
	if plan.Scenario.Checkpoint.MinPause > 0 {
		f["vocab:Config.MinPause"] = true
	}
	f["verdict:"+res.Verdict] = true
	o.rules(plan, res)
	out := make([]string, 0, len(f))
	for k := range f {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// rules adds a feature per rule whose property the run exercised, and one per word of the
// rule's vocabulary the run showed besides.
func (o *Observer) rules(plan *scenarios.Plan, res *scenarios.Result) {
	unexercised := map[checker.Property]bool{}
	for _, u := range res.Unexercised {
		name, _, _ := strings.Cut(u, " (")
		unexercised[checker.Property(name)] = true
	}
	for _, r := range checker.Rules() {
		if !slices.Contains(plan.Properties, r.Property) || unexercised[r.Property] {
			continue
		}
		o.seen["rule:"+r.ID] = true
		for _, word := range r.Covers {
			if o.seen["vocab:"+word] {
				o.seen["rule:"+r.ID+"/"+word] = true
			}
		}
	}
}
