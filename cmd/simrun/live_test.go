package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine/live"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// TestLiveCalmScenarioPasses runs the calm catalogue pipeline live (about 1.5s of wall
// clock: its sources' 150 records at 10ms each) and requires the verdict pass and exit 0,
// with the trace written to the file -trace names. It asserts no time.
func TestLiveCalmScenarioPasses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.jsonl")
	r := realRun("live", "-scenario", "pipeline-calm", "-for", "20s", "-trace", path)
	if r.code != exitOK || !strings.Contains(r.stdout, "verdict:     pass, as expected (pass)") || r.stderr != "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"live:        for=20s on the wall clock, no crashes", "trace file:  " + path} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header, events, err := trace.ReadAll(f)
	if err != nil || header.Scenario != "pipeline-calm" || len(events) == 0 {
		t.Fatalf("the trace file: header %+v, %d events, %v", header, len(events), err)
	}
}

// TestLiveBadInput: bad usage and input exit 2 with one line on stderr and nothing on
// stdout, before anything runs.
func TestLiveBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown scenario", []string{"-scenario", "no-such-scenario", "-for", "1s"}, `unknown scenario "no-such-scenario"`},
		{"no scenario", []string{"-for", "1s"}, "-scenario is required"},
		{"no duration", []string{"-scenario", "pipeline-calm"}, "-for must be a positive duration"},
		{"bad duration", []string{"-scenario", "pipeline-calm", "-for", "soon"}, `invalid value "soon" for -for`},
		{"zero duration", []string{"-scenario", "pipeline-calm", "-for", "0s"}, "-for must be a positive duration"},
		{"negative crashes", []string{"-scenario", "pipeline-calm", "-for", "1s", "-crash-every", "-1s"}, "-crash-every must not be negative"},
		{"crashes too rare", []string{"-scenario", "pipeline-calm", "-for", "2s", "-crash-every", "1s"}, "crashes nothing"},
		{"negative control", []string{"-scenario", "control-lost-state", "-for", "1s"}, "is a negative control"},
		{"script", []string{"-scenario", "chandy-lamport-classic", "-for", "1s"}, "has a script"},
		{"argument", []string{"-scenario", "pipeline-calm", "-for", "1s", "extra"}, `unexpected argument "extra"`},
		{"unknown flag", []string{"-scenario", "pipeline-calm", "-for", "1s", "-seeds", "1-2"}, "unknown flag -seeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := realRun(append([]string{"live"}, tc.args...)...)
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if r.code != exitUsage || r.stdout != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "simrun: live: ") {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2 and one line", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
		})
	}
}

// TestLiveJudgement checks judgeLive's three outcomes on made-up runs, without running
// anything: a bounded job cut before its liveness bound is limit (never pass) and is not
// failed for not finishing; a panic fails the run with a violation pinned to the last
// event; a broken protocol invariant is an invariant violation.
func TestLiveJudgement(t *testing.T) {
	s, err := scenarios.Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	_, ref, err := scenarios.LiveJob(s)
	if err != nil {
		t.Fatal(err)
	}
	plan := &scenarios.Plan{Scenario: s, Seed: 1, Properties: scenarios.PropertiesToCheck(s)}
	rec := trace.NewRecorder(nil, trace.Header{})
	rec.KeepEvents()
	rec.Emit(1000, trace.Event{Kind: trace.KindTaskRestore, Task: "source-0"})

	res := judgeLive(plan, ref, rec, live.Outcome{EndNanos: 1000}, nil)
	if res.Verdict != scenarios.VerdictLimit || !strings.Contains(res.LimitReason, "had not finished") || len(res.Violations) != 0 {
		t.Errorf("a cut job: verdict %s (%s), violations %v; want limit", res.Verdict, res.LimitReason, res.Violations)
	}
	// A cut job whose liveness window reached the bound is judged in full: not finishing
	// is then a liveness failure.
	bound := s.Limits.LivenessBound.Nanos() * 5 / 4
	res = judgeLive(plan, ref, rec, live.Outcome{EndNanos: bound}, nil)
	if res.Verdict != scenarios.VerdictFail || !containsProperty(res.Violations, checker.PropLiveness) {
		t.Errorf("a job unfinished after its bound: verdict %s, violations %v; want a liveness failure", res.Verdict, res.Violations)
	}

	res = judgeLive(plan, ref, rec, live.Outcome{Panic: &live.Panic{Process: "sum-1", Value: "boom", Nanos: 2000}}, nil)
	if res.Verdict != scenarios.VerdictFail || len(res.Violations) != 1 || res.Violations[0].Property != scenarios.PropertyPanic ||
		res.Violations[0].Seq != 0 || !strings.Contains(res.Violations[0].Message, "panic in sum-1 (after task.restore): boom") {
		t.Errorf("a panic: verdict %s, violations %v", res.Verdict, res.Violations)
	}
	broken := &live.Panic{Value: &protocol.InvariantError{}, Invariant: true}
	if !errors.As(broken.Value.(error), new(*protocol.InvariantError)) {
		t.Fatal("test setup")
	}
	res = judgeLive(plan, ref, rec, live.Outcome{Panic: broken}, nil)
	if len(res.Violations) != 1 || res.Violations[0].Property != scenarios.PropertyInvariant {
		t.Errorf("a broken invariant: violations %v", res.Violations)
	}
}

func containsProperty(vs []checker.Violation, p checker.Property) bool {
	for _, v := range vs {
		if v.Property == p {
			return true
		}
	}
	return false
}
