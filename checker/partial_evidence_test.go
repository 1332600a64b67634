package checker_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// The tests here hunt a class of false verdicts: a property that decides on partial evidence.
// They take real traces, of correct runs and of negative controls, remove part of the
// evidence, and judge what is left with every property. Removing evidence may leave a
// property unknown or unexercised, or leave its verdict as it was; it must never turn a fail
// into a pass (the trace no longer shows the violation, so the property cannot say there is
// none), nor a pass into a fail merely because something is missing.
//
// Some removals are not partial evidence but a different trace that claims something wrong,
// and the schema gives the absence a meaning. A sink.commit left out says the records were
// not committed; a snapshot.taken left out says the task has no snapshot in that cut, so a
// receiver holding its records holds an effect without its cause; a count left out of a
// snapshot says zero, so the other end's count no longer matches. A pass turned fail by such
// a removal is the property reading the trace right. partialRemovalClaims lists, per
// removal, the properties whose pass may turn into a fail for that reason, each with why.
// Everything else is held to the rule.

// partialEvidenceRun is one run that the hunt mutilates.
type partialEvidenceRun struct {
	scenario string
	seed     uint64
}

// partialEvidenceRuns are few and short, so the hunt stays fast: correct runs with restores,
// carried snapshots, failovers and token workloads, and negative controls that fail
// consistent-cut (aligned and token) and the output properties.
var partialEvidenceRuns = []partialEvidenceRun{
	{"coordinator-failover", 1},
	{"savepoint-before-final", 1},
	{"uneven-finish-notify-lost", 1},
	{"chandy-lamport-ring", 1},
	{"control-reorder-aligned", 1},
	{"control-chandy-lamport-reorder", 1},
	{"control-duplicated-records", 1},
}

// removal is one way of taking evidence out of a trace: it returns the events left, with
// seq renumbered so that the trace stays well formed.
type removal struct {
	name string
	kind string // the family, the key of partialRemovalClaims
	keep func(e *trace.Event) (trace.Event, bool)
}

// apply returns the events removal leaves of events.
func (r removal) apply(events []trace.Event) []trace.Event {
	var out []trace.Event
	for i := range events {
		e, ok := r.keep(&events[i])
		if !ok {
			continue
		}
		e.Seq = uint64(len(out))
		out = append(out, e)
	}
	return out
}

// runTrace runs a built-in scenario and returns its trace and reference, without the trace
// hash: every removal changes the hash, and determinism would fail for that alone.
func runTrace(t *testing.T, run partialEvidenceRun) ([]trace.Event, checker.Reference) {
	t.Helper()
	s, err := scenarios.Lookup(run.scenario)
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	if _, _, err := scenarios.Execute(scenarios.NewSimulation(), s, run.seed, scenarios.RunOptions{Trace: &lines}); err != nil {
		t.Fatal(err)
	}
	ref, err := scenarios.ReferenceFor(s)
	if err != nil {
		t.Fatal(err)
	}
	_, events, err := trace.ReadAll(&lines)
	if err != nil {
		t.Fatal(err)
	}
	return events, ref
}

func TestRemovingEvidenceNeverDecidesAVerdict(t *testing.T) {
	for _, run := range partialEvidenceRuns {
		t.Run(fmt.Sprintf("%s-seed%d", run.scenario, run.seed), func(t *testing.T) {
			events, ref := runTrace(t, run)
			opts := checker.Options{Properties: checker.AllProperties}
			whole := checker.Check(events, ref, opts)
			removals := append(removalsOf(events), violatedChannelsRemoval(t, whole))
			for _, r := range removals {
				cut := checker.Check(r.apply(events), ref, opts)
				for _, before := range whole.Results {
					after, _ := cut.Result(before.Property)
					if problem := verdictChange(r, before, after); problem != "" {
						t.Errorf("%s, removing %s: %s %s\n  before: %s\n  after:  %s",
							run.scenario, r.name, before.Property, problem, oneLine(before), oneLine(after))
					}
				}
			}
		})
	}
}

// verdictChange returns what is wrong with a property's verdict after the removal r, or "".
func verdictChange(r removal, before, after checker.Result) string {
	switch {
	case before.Verdict == after.Verdict:
	case after.Verdict == checker.VerdictUnknown || after.Verdict == checker.VerdictUnexercised:
	case before.Verdict == checker.VerdictFail && after.Verdict == checker.VerdictPass:
		return "a fail turned into a pass"
	case after.Verdict == checker.VerdictFail && partialRemovalClaims[r.kind][before.Property] != "":
	case after.Verdict == checker.VerdictFail:
		return fmt.Sprintf("%s turned into a fail", before.Verdict)
	case after.Verdict == checker.VerdictPass:
		return fmt.Sprintf("%s turned into a pass", before.Verdict)
	}
	return ""
}

func oneLine(res checker.Result) string {
	s := string(res.Verdict)
	if res.Note != "" {
		s += " (" + res.Note + ")"
	}
	if len(res.Violations) > 0 {
		s += ": " + res.Violations[0].String()
	}
	return s
}

// removalsOf lists the removals tried on events: all events of one task; one channel's
// counts on every snapshot; all events of one checkpoint; every attribute of one kind; and
// every other event of one kind.
func removalsOf(events []trace.Event) []removal {
	var tasks, channels []string
	var checkpoints []uint64
	for i := range events {
		e := &events[i]
		if e.Task != "" && e.Task != "coordinator" {
			tasks = append(tasks, e.Task)
		}
		if e.CP > 0 {
			checkpoints = append(checkpoints, e.CP)
		}
		if e.Kind == trace.KindBarrierSend {
			channels = append(channels, e.Task+"->"+e.To)
		}
	}
	var out []removal
	for _, task := range compact(tasks) {
		out = append(out, removal{"every event of task " + task, "task", func(e *trace.Event) (trace.Event, bool) {
			return *e, e.Task != task
		}})
	}
	for _, ch := range compact(channels) {
		from, to, _ := strings.Cut(ch, "->")
		out = append(out, removal{"channel " + ch + "'s counts", "channel counts", func(e *trace.Event) (trace.Event, bool) {
			return withoutAttrs(e, func(key string) bool { return channelCount(e, key, from, to) }), true
		}})
	}
	for _, cp := range compact(checkpoints) {
		out = append(out, removal{fmt.Sprintf("every event of checkpoint %d", cp), "checkpoint", func(e *trace.Event) (trace.Event, bool) {
			return *e, e.CP != cp
		}})
	}
	out = append(out, attrRemovals()...)
	return append(out, everyOtherRemovals()...)
}

// attrRemovals remove every attribute of one kind.
func attrRemovals() []removal {
	var out []removal
	for _, prefix := range []string{trace.AttrState, trace.AttrSentPrefix, trace.AttrRecvPrefix, trace.AttrChanPrefix,
		trace.AttrOutPrefix, trace.AttrTokens, trace.AttrChanTokensPrefix, trace.AttrChanMsgsPrefix, "records", "start"} {
		out = append(out, removal{"every attribute " + prefix + "*", "attribute " + prefix, func(e *trace.Event) (trace.Event, bool) {
			return withoutAttrs(e, func(key string) bool {
				return key == prefix || strings.HasSuffix(prefix, ".") && strings.HasPrefix(key, prefix)
			}), true
		}})
	}
	return out
}

// everyOtherRemovals remove every other event of one kind, the first kept.
func everyOtherRemovals() []removal {
	var out []removal
	for _, kind := range []string{trace.KindSnapshotAck, trace.KindSnapshotTaken, trace.KindSnapshotCarried,
		trace.KindBarrierRecv, trace.KindNotifyComplete, trace.KindCheckpointPersist, trace.KindTaskRestore,
		trace.KindTaskFinish, trace.KindSinkCommit, trace.KindSinkWrite, trace.KindSinkWrites, trace.KindStateRelease} {
		seen := 0
		out = append(out, removal{"every other " + kind, kind, func(e *trace.Event) (trace.Event, bool) {
			if e.Kind != kind {
				return *e, true
			}
			seen++
			return *e, seen%2 == 1
		}})
	}
	return out
}

// violatedChannel finds the channel a consistent-cut violation names.
var violatedChannel = regexp.MustCompile(`channel (\S+)->(\S+) inconsistent`)

// violatedChannelsRemoval removes the counts, at both ends and on every snapshot, of every
// channel that a consistent-cut violation of the whole trace names: the evidence of the
// violation and nothing else, as an engine that leaves zero counts out but miscounts would
// write it. A negative control's violations often span several channels, so removing one
// channel's counts leaves the others to fail; removing them all must not make it pass.
func violatedChannelsRemoval(t *testing.T, whole checker.Report) removal {
	res, _ := whole.Result(checker.PropConsistentCut)
	var channels [][2]string
	for _, v := range res.Violations {
		if m := violatedChannel.FindStringSubmatch(v.Message); m != nil {
			channels = append(channels, [2]string{m[1], m[2]})
		}
	}
	if res.Verdict == checker.VerdictFail && len(channels) == 0 && strings.Contains(res.Violations[0].Message, "channel") {
		t.Fatalf("no channel found in the violations of consistent-cut; has their wording changed? %s", res)
	}
	return removal{"the counts of every channel a consistent-cut violation names", "channel counts",
		func(e *trace.Event) (trace.Event, bool) {
			return withoutAttrs(e, func(key string) bool {
				return slices.ContainsFunc(channels, func(ch [2]string) bool { return channelCount(e, key, ch[0], ch[1]) })
			}), true
		}}
}

// channelCount reports whether key, an attribute of e, counts the channel from -> to.
func channelCount(e *trace.Event, key, from, to string) bool {
	if e.Kind != trace.KindSnapshotTaken {
		return false
	}
	switch e.Task {
	case from:
		return key == trace.AttrSentPrefix+to || key == trace.AttrOutPrefix+to
	case to:
		for _, prefix := range []string{trace.AttrRecvPrefix, trace.AttrChanPrefix, trace.AttrChanTokensPrefix,
			trace.AttrChanMsgsPrefix, trace.AttrChanMorePrefix} {
			if key == prefix+from {
				return true
			}
		}
	}
	return false
}

// withoutAttrs returns a copy of e without the attributes drop chooses.
func withoutAttrs(e *trace.Event, drop func(key string) bool) trace.Event {
	c := *e
	c.Attrs = slices.DeleteFunc(slices.Clone(e.Attrs), func(a trace.Attr) bool { return drop(a.Key) })
	return c
}

func compact[T interface{ ~string | ~uint64 }](list []T) []T {
	slices.Sort(list)
	return slices.Compact(list)
}

// partialRemovalClaims lists, per family of removal, the properties whose pass may turn into
// a fail because the removal makes the trace claim something wrong, with the reason.
var partialRemovalClaims = map[string]map[checker.Property]string{
	"task": {
		checker.PropConsistentCut:  "the task has no snapshot in any cut, so records at the other end of its channels need a snapshot that is not there",
		checker.PropExactlyOnce:    "a sink task's writes and commits are gone: its records were never committed",
		checker.PropAtLeastOnce:    "a sink task's writes and commits are gone: its records were never committed",
		checker.PropSinkVisibility: "a sink task's commits are gone, so what a reader saw was never committed",
		checker.PropLiveness:       "a task of finish_tasks never finishes, and a sink's output is never committed",
		checker.PropFailoverCause:  "the task's task.crash is gone, so the failover for its failure has no cause in the trace",
	},
	"checkpoint": {
		checker.PropConsistentCut:    "a later snapshot.carried names a snapshot.taken that is no longer there",
		checker.PropExactlyOnce:      "the checkpoint's sink.commit events are gone: its records were never committed",
		checker.PropAtLeastOnce:      "the checkpoint's sink.commit events are gone: its records were never committed",
		checker.PropSinkVisibility:   "the checkpoint's sink.commit events are gone, so what a reader saw was never committed",
		checker.PropLiveness:         "the checkpoint's commits and completion are gone: output not committed, no checkpoint after the heal",
		checker.PropListenerContract: "a sink commits on the notification of a checkpoint whose notify.complete is gone",
		checker.PropDurableVisible:   "a sink commits on the completion of a checkpoint whose checkpoint.complete is gone",
		checker.PropStateRelease:     "the completion that took an older checkpoint out of retention is gone, so the older one reads as retained when its state is released",
	},
	trace.KindSinkCommit: {
		checker.PropExactlyOnce:    "a commit left out says its records were not committed",
		checker.PropAtLeastOnce:    "a commit left out says its records were not committed",
		checker.PropSinkVisibility: "a commit left out says what a reader saw was not committed",
		checker.PropLiveness:       "a commit left out says the output was not all committed",
	},
	trace.KindSinkWrites: {
		checker.PropExactlyOnce: "a batch left out says its records were never written",
		checker.PropAtLeastOnce: "a batch left out says its records were never written",
		checker.PropLiveness:    "a batch left out says the output was not all committed",
	},
	trace.KindStateRelease: {
		checker.PropStateRelease: "a release left out says the state was never deleted",
	},
	trace.KindSnapshotCarried: {
		checker.PropConsistentCut: "the trace carries final snapshots into other cuts, so one left out says that cut lacks the finished task",
	},
	trace.KindSnapshotTaken: {
		checker.PropConsistentCut:   "a snapshot left out says the task has no snapshot in that cut",
		checker.PropRestoreFidelity: "a task restores from a checkpoint in which the trace now says it took no snapshot",
	},
	trace.KindNotifyComplete: {
		checker.PropListenerContract: "a notification left out says the task was not notified before it committed or within the bound",
	},
	trace.KindTaskFinish: {
		checker.PropLiveness:         "a finish left out says a task of finish_tasks never finished",
		checker.PropListenerContract: "a finish left out says the task lived on, and was owed a notification it did not get",
	},
	"attribute " + trace.AttrSentPrefix: {
		checker.PropConsistentCut: "a count left out says zero, and the receiver's count says otherwise",
	},
	"attribute " + trace.AttrRecvPrefix: {
		checker.PropConsistentCut: "a count left out says zero, and the sender's count says otherwise",
	},
	"attribute " + trace.AttrChanPrefix: {
		checker.PropConsistentCut: "a count left out says zero, and the sender's count says otherwise",
	},
	"attribute records": {
		checker.PropWellFormed: "records is a required attribute: the events are malformed",
	},
}
