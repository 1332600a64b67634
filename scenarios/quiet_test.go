package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// quietScript drives a quietWatch by hand: the job finishes and unfinishes when the script
// says, and the coordinator sends what it says.
type quietScript struct {
	t        *testing.T
	finished bool
	now      int64
	rec      *trace.Recorder
	q        *quietWatch
}

func newQuietScript(t *testing.T) *quietScript {
	s := &quietScript{t: t, rec: trace.NewRecorder(nil, trace.Header{})}
	s.rec.KeepEvents()
	s.q = newQuietWatch(func() bool { return s.finished }, func() int64 { return s.now }, s.rec)
	return s
}

func (s *quietScript) notify(to string, cp protocol.CheckpointID) {
	s.now++
	s.q.sent(engine.CoordinatorName, to, &protocol.Message{Type: protocol.MsgNotifyComplete, Task: protocol.TaskID(to), Checkpoint: cp})
}

func (s *quietScript) trigger(to string, cp protocol.CheckpointID) {
	s.now++
	s.q.sent(engine.CoordinatorName, to, &protocol.Message{Type: protocol.MsgTrigger, Kind: protocol.KindCheckpoint, Mode: protocol.ModeAligned, Task: protocol.TaskID(to), Checkpoint: cp})
}

func (s *quietScript) abort(to string, cp protocol.CheckpointID) {
	s.now++
	s.q.sent(engine.CoordinatorName, to, &protocol.Message{Type: protocol.MsgNotifyAborted, Task: protocol.TaskID(to), Checkpoint: cp, Reason: protocol.ReasonPersistFailed})
}

func (s *quietScript) crash() {
	s.now++
	s.rec.Emit(s.now, trace.Event{Kind: trace.KindCoordinatorCrash, Task: engine.CoordinatorName})
}

// verdict judges the watch into a passing result and returns it.
func (s *quietScript) verdict() *Result {
	res := &Result{Verdict: VerdictPass}
	s.q.judge(res)
	return res
}

func (s *quietScript) wantViolations(messages ...string) {
	s.t.Helper()
	res := s.verdict()
	var got []string
	for _, v := range res.Violations {
		if v.Property != PropertyQuiet {
			s.t.Errorf("violation of %s, want %s", v.Property, PropertyQuiet)
		}
		got = append(got, v.Message)
	}
	if !slices.Equal(got, messages) {
		s.t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(messages, "\n"))
	}
	if want := VerdictPass; len(messages) > 0 {
		want = VerdictFail
		if res.Verdict != want {
			s.t.Errorf("verdict %s, want %s", res.Verdict, want)
		}
	} else if res.Verdict != want || slices.ContainsFunc(res.Unexercised, isQuiet) {
		s.t.Errorf("verdict %s (unexercised %q), want a judged pass", res.Verdict, res.Unexercised)
	}
}

func isQuiet(note string) bool { return strings.HasPrefix(note, string(PropertyQuiet)+" ") }

const resent = "the job had finished, yet the coordinator sent notify-complete coordinator->a-0 cp=3"

func TestQuietCatchesAResentCompletion(t *testing.T) {
	s := newQuietScript(t)
	s.notify("a-0", 2)
	s.notify("a-0", 3)
	s.finished = true
	s.notify("a-0", 3) // what a stale deadline timer's Tick re-sends (FLINK-5962)
	s.wantViolations(resent)
}

func TestQuietCatchesATriggerAfterTheFinish(t *testing.T) {
	s := newQuietScript(t)
	s.notify("a-0", 3)
	s.finished = true
	s.trigger("a-0", 4)
	s.wantViolations("the job had finished, yet the coordinator sent trigger coordinator->a-0 cp=4 checkpoint aligned t=0")
}

// A checkpoint already persisting when the last task exited completes after the finish;
// its news goes out once to each task, and a second time is a re-send.
func TestQuietAllowsLateCompletionsOnce(t *testing.T) {
	s := newQuietScript(t)
	s.notify("a-0", 3)
	s.notify("b-0", 3)
	s.finished = true
	s.notify("a-0", 5)
	s.notify("b-0", 5)
	s.notify("a-0", 4)
	s.wantViolations()
	s.notify("a-0", 5)
	s.wantViolations("the job had finished, yet the coordinator sent notify-complete coordinator->a-0 cp=5")
}

// A checkpoint still persisting at the finish can fail after it, below a completion already
// announced: its abort goes out once to each task. An abort of a checkpoint that ended
// before the finish is a re-send.
func TestQuietAllowsALateAbortOnce(t *testing.T) {
	s := newQuietScript(t)
	s.notify("a-0", 5)
	s.finished = true
	s.rec.Emit(s.now, trace.Event{Kind: trace.KindCheckpointAbort, Task: engine.CoordinatorName, CP: 4})
	s.abort("a-0", 4)
	s.wantViolations()
	s.abort("a-0", 4)
	s.abort("a-0", 2)
	s.wantViolations(
		"the job had finished, yet the coordinator sent notify-aborted coordinator->a-0 cp=4 reason=persist-failed",
		"the job had finished, yet the coordinator sent notify-aborted coordinator->a-0 cp=2 reason=persist-failed")
}

func TestQuietIgnoresOtherSenders(t *testing.T) {
	s := newQuietScript(t)
	s.finished = true
	s.q.sent("reader-0", "store", "read")
	s.q.sent("a-0", engine.CoordinatorName, &protocol.Message{Type: protocol.MsgAck, Task: "a-0", Checkpoint: 3})
	s.wantViolations()
}

// A coordinator that crashes after the finish is replaced by one that recovers and runs
// the job again: its announcements while the old finish still shows are not re-sends, but
// once the job it runs has finished it is held to the rule.
func TestQuietStartsOverWithTheNextCoordinator(t *testing.T) {
	s := newQuietScript(t)
	s.notify("a-0", 3)
	s.finished = true
	s.crash()
	s.notify("a-0", 3) // the successor announces the checkpoint it recovered
	s.wantViolations()
	s.finished = false // the job runs again
	s.notify("a-0", 3)
	s.finished = true
	s.notify("a-0", 3)
	s.wantViolations(resent)
}

func TestQuietIsUnexercisedWithoutAFinish(t *testing.T) {
	s := newQuietScript(t)
	s.notify("a-0", 3)
	if res := s.verdict(); res.Verdict != VerdictPass || !slices.ContainsFunc(res.Unexercised, isQuiet) {
		t.Errorf("a job that never finished: verdict %s, unexercised %q; want quiet unexercised", res.Verdict, res.Unexercised)
	}
	s.finished = true
	s.crash()
	s.finished = false
	s.notify("a-0", 3)
	if res := s.verdict(); slices.ContainsFunc(res.Unexercised, isQuiet) {
		t.Errorf("a finish watched until the crash: unexercised %q, want quiet judged", res.Unexercised)
	}
}

// TestQuietJudgesRealRuns: the real simulation watches its coordinator, a bounded calm job
// finishes and passes, and the quiet property is judged, not left unexercised.
func TestQuietJudgesRealRuns(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := Execute(NewSimulation(), s, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != VerdictPass || slices.ContainsFunc(res.Unexercised, isQuiet) {
		t.Errorf("pipeline-calm seed 1: verdict %s, unexercised %q; want a pass with quiet judged", res.Verdict, res.Unexercised)
	}
}
