package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// checkOutput is `check -json`'s object as a consumer reads it.
type checkOutput struct {
	Trace     string        `json:"trace"`
	Events    int           `json:"events"`
	TraceHash string        `json:"trace_hash"`
	Reference string        `json:"reference"`
	Verdict   string        `json:"verdict"`
	Results   []checkResult `json:"results"`
}

func decodeCheck(t *testing.T, r invocationResult) checkOutput {
	t.Helper()
	var out checkOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("check -json printed no JSON object (exit %d): %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	return out
}

// verdicts maps each property of a check to its verdict.
func (c checkOutput) verdicts() map[string]string {
	m := make(map[string]string)
	for _, res := range c.Results {
		m[string(res.Property)] = string(res.Verdict)
	}
	return m
}

// runOutput is the part of `run -json` that the round trip compares.
type runOutput struct {
	Verdict    string              `json:"verdict"`
	TraceHash  string              `json:"trace_hash"`
	Violations []checker.Violation `json:"violations"`
	// Unexercised holds "property (note)" for each property the run gave no occasion.
	Unexercised []string `json:"unexercised"`
}

// TestCheckRoundTrip runs built-in scenarios with -trace and -reference-out, then judges the
// trace with simrun check, against the scenario (-scenario) and against the reference file the
// run wrote (-reference): each property has the verdict it had in the run, and the violations
// are the run's (the run keeps 10 per property, check 50). A pass and a negative control that
// fails two properties.
func TestCheckRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		scenario, seed string
		failing        []string
	}{
		{"standard", "1", nil},
		{"control-reorder-aligned", "3", []string{"consistent-cut", "exactly-once"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := t.TempDir()
			tracePath, refPath := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "ref.json")
			r := realRun("run", "-scenario", tc.scenario, "-seed", tc.seed, "-trace", tracePath, "-reference-out", refPath, "-json", "-artifacts", dir)
			if r.code != exitOK {
				t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			var ran runOutput
			if err := json.Unmarshal([]byte(r.stdout), &ran); err != nil {
				t.Fatal(err)
			}
			var violated []string
			for _, v := range ran.Violations {
				if !slices.Contains(violated, string(v.Property)) {
					violated = append(violated, string(v.Property))
				}
			}
			slices.Sort(violated)
			if !slices.Equal(violated, tc.failing) {
				t.Fatalf("the run violated %v, want %v", violated, tc.failing)
			}
			s, err := scenarios.Lookup(tc.scenario)
			if err != nil {
				t.Fatal(err)
			}
			judged := scenarios.PropertiesToCheck(s)
			wantExit := exitOK
			if len(tc.failing) > 0 {
				wantExit = exitUnexpected
			}

			byScenario := realRun("check", "-json", "-scenario", tc.scenario, tracePath)
			out := decodeCheck(t, byScenario)
			if byScenario.code != wantExit || out.TraceHash != ran.TraceHash {
				t.Errorf("check -scenario: exit %d, want %d; hash %s, the run's %s", byScenario.code, wantExit, out.TraceHash, ran.TraceHash)
			}
			var properties []checker.Property
			for _, res := range out.Results {
				properties = append(properties, res.Property)
			}
			if !slices.Equal(properties, judged) {
				t.Errorf("check -scenario judged %v, the run %v", properties, judged)
			}
			assertSameVerdicts(t, "check -scenario", out, judged, ran)

			byFile := realRun("check", tracePath, "-reference", refPath, "-json")
			out = decodeCheck(t, byFile)
			if byFile.code != wantExit {
				t.Errorf("check -reference: exit %d, want %d\n%s", byFile.code, wantExit, byFile.stderr)
			}
			properties = nil
			for _, res := range out.Results {
				properties = append(properties, res.Property)
			}
			// The reference file carries the run's promises and its trace hash.
			if want := append(slices.Clone(judged), checker.PropDeterminism); !slices.Equal(properties, want) {
				t.Errorf("check -reference judged %v, want the run's %v", properties, want)
			}
			assertSameVerdicts(t, "check -reference", out, judged, ran)
			if v := out.verdicts()["determinism"]; v != "pass" {
				t.Errorf("check -reference: determinism %s against the run's own trace hash", v)
			}
		})
	}
}

// assertSameVerdicts checks that every property the run judged has the run's verdict in out,
// with the run's violations first.
func assertSameVerdicts(t *testing.T, what string, out checkOutput, judged []checker.Property, ran runOutput) {
	t.Helper()
	for _, res := range out.Results {
		if !slices.Contains(judged, res.Property) {
			continue
		}
		var want []checker.Violation
		for _, v := range ran.Violations {
			if v.Property == res.Property {
				want = append(want, v)
			}
		}
		wantVerdict := checker.VerdictPass
		if len(want) > 0 {
			wantVerdict = checker.VerdictFail
		}
		if slices.ContainsFunc(ran.Unexercised, func(u string) bool { return strings.HasPrefix(u, string(res.Property)+" ") }) {
			wantVerdict = checker.VerdictUnexercised
		}
		if res.Verdict != wantVerdict {
			t.Errorf("%s: %s is %s (%s), in the run %s", what, res.Property, res.Verdict, res.Note, wantVerdict)
			continue
		}
		if len(res.Violations) < len(want) {
			t.Errorf("%s: %s has %d violations, the run %d", what, res.Property, len(res.Violations), len(want))
			continue
		}
		for i, w := range want {
			g := res.Violations[i]
			got := checker.Violation{Property: g.Property, Message: g.Message, Seq: g.Seq, T: g.T, Task: g.Task, CP: g.CP, Rule: g.Rule, From: g.From, To: g.To}
			if got != w {
				t.Errorf("%s: %s violation %d:\n got %+v\nwant %+v", what, res.Property, i, got, w)
			}
		}
	}
}

// TestCheckBadInput: bad usage and bad input to check (and to run's -reference-out) exit 2 with one line on stderr, print
// nothing on stdout and change no file.
func TestCheckBadInput(t *testing.T) {
	dir := inTempDir(t)
	good := writeFile(t, filepath.Join(dir, "good.jsonl"), headerAndPhase)
	badLine := writeFile(t, filepath.Join(dir, "bad.jsonl"), headerAndPhase+`{"seq":1,"t":5,"kind":`+"\n")
	newer := writeFile(t, filepath.Join(dir, "newer.jsonl"), `{"kind":"trace.header","version":2}`+"\n")
	headless := writeFile(t, filepath.Join(dir, "headless.jsonl"), `{"seq":0,"t":0,"kind":"phase","phase":"fault"}`+"\n")
	badRef := writeFile(t, filepath.Join(dir, "ref.json"), `{"guarantee": "exactly-once", "output": {"r1": {"value": "1", "counts": 2}}}`)
	wrongType := writeFile(t, filepath.Join(dir, "ref-type.json"), `{"liveness": {"notify_max_ns": "1s"}}`)
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no trace", []string{"check"}, "", "check: want exactly one trace file (- for stdin), got 0 arguments"},
		{"two traces", []string{"check", good, good}, "", "got 2 arguments"},
		{"missing trace", []string{"check", "gone.jsonl"}, "", "check: gone.jsonl: no such file"},
		{"trace is a directory", []string{"check", dir}, "", "is a directory, not a file"},
		{"bad JSON line", []string{"check", badLine}, "", "check: " + badLine + ":3: not a JSON object"},
		{"bad JSON line on stdin", []string{"check", "-"}, headerAndPhase + "{\n", "check: stdin:3: not a JSON object"},
		{"empty stdin", []string{"check", "-"}, "", "check: stdin: empty file: no header line"},
		{"newer schema", []string{"check", newer}, "", "check: " + newer + ":1: schema version 2, this build reads 1 to 1"},
		{"no header", []string{"check", headless}, "", "check: " + headless + ":1: not a trace header"},
		{"unknown reference field", []string{"check", "-reference", badRef, good}, "", `check: -reference ` + badRef + `: reference.output["r1"].counts: unknown field (known: value, count, split, offset)`},
		{"wrong reference type", []string{"check", good, "-reference", wrongType}, "", "reference.liveness.notify_max_ns: must be a non-negative integer, got a string"},
		{"missing reference", []string{"check", "-reference", "gone.json", good}, "", "check: -reference gone.json: no such file"},
		{"two references", []string{"check", "-reference", badRef, "-scenario", "standard", good}, "", "-reference and -scenario both give a reference"},
		{"unknown scenario", []string{"check", "-scenario", "nope", good}, "", `check: unknown scenario "nope"`},
		{"unknown property", []string{"check", "-check", "well-formed,exactly-twice", good}, "", `check: -check: "exactly-twice" is no property, rule or section of the specification (did you mean "exactly-once"?) (properties: well-formed,`},
		{"misspelt property", []string{"check", "-check", "exactly-onse", good}, "", `"exactly-onse" is no property, rule or section of the specification (did you mean "exactly-once"?) (properties:`},
		{"misspelt rule", []string{"check", "-check", "notify.in-ordr", good}, "", `(did you mean "notify.in-order"?)`},
		{"empty property", []string{"check", "-check", "well-formed,", good}, "", `"" is no property, rule or section`},
		{"unknown flag", []string{"check", "-refrence", badRef, good}, "", "check: unknown flag -refrence"},
		{"reference out into a missing directory", []string{"run", "-scenario", "standard", "-seed", "1", "-trace", good, "-reference-out", filepath.Join(dir, "no", "ref.json")}, "", "run: -reference-out " + filepath.Join(dir, "no", "ref.json") + ": no directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshotDir(t, dir)
			a := testApp(t, scenarios.NewSimulation())
			a.stdin = strings.NewReader(tc.stdin)
			r := a.invoke(tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, exitUsage, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "simrun: "+tc.args[0]+": ") {
				t.Errorf("stderr is not one line starting with \"simrun: %s: \": %q", tc.args[0], r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q\ndoes not contain %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout is not empty: %q", r.stdout)
			}
			if after := snapshotDir(t, dir); after != before {
				t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// headerAndPhase is a trace of a header and one phase event: nothing to judge any property by.
const headerAndPhase = `{"kind":"trace.header","version":1,"scenario":"empty","seed":0,"build":"other-engine"}
{"seq":0,"t":0,"kind":"phase","phase":"fault"}
`

// foreignEvents is a small, correct run of another engine, written the way such an engine
// might: one JSON object per event with its keys in alphabetical order (encoding/json's map
// order, not the canonical one), and numeric attributes as JSON numbers. A source sends two
// records to a two-phase-commit sink; checkpoint 1 covers both; the sink commits them once
// it is notified, a reader sees them, and every task finishes.
var foreignEvents = []map[string]any{
	{"kind": "checkpoint.trigger", "task": "coordinator", "cp": 1},
	{"kind": "trigger.recv", "task": "source-0", "cp": 1},
	{"kind": "sink.write", "task": "sink-0", "txn": "tx-1", "rid": "r1", "value": "apple=1"},
	{"kind": "sink.write", "task": "sink-0", "txn": "tx-1", "rid": "r2", "value": "pear=1"},
	{"kind": "snapshot.taken", "task": "source-0", "cp": 1, "state": "off=2", "sent.sink-0": 2},
	{"kind": "barrier.send", "task": "source-0", "to": "sink-0", "cp": 1},
	{"kind": "barrier.recv", "task": "sink-0", "from": "source-0", "cp": 1},
	{"kind": "snapshot.taken", "task": "sink-0", "cp": 1, "state": "tx-1", "recv.source-0": 2},
	{"kind": "sink.precommit", "task": "sink-0", "cp": 1, "txn": "tx-1"},
	{"kind": "snapshot.ack", "task": "source-0", "cp": 1},
	{"kind": "snapshot.ack", "task": "sink-0", "cp": 1},
	{"kind": "checkpoint.persist", "task": "coordinator", "cp": 1},
	{"kind": "checkpoint.complete", "task": "coordinator", "cp": 1},
	{"kind": "notify.complete", "task": "source-0", "cp": 1},
	{"kind": "notify.complete", "task": "sink-0", "cp": 1},
	{"kind": "sink.commit", "task": "sink-0", "cp": 1, "txn": "tx-1", "records": 2, "start": 1300},
	{"kind": "sink.read", "task": "reader-0", "records": 2, "start": 1500},
	{"kind": "task.finish", "task": "source-0"},
	{"kind": "task.finish", "task": "sink-0"},
}

// writeForeignTrace writes events as a trace file, numbering them 0, 1, ... at 100ns apart.
func writeForeignTrace(t *testing.T, path string, events []map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"build":"other-engine 0.3","kind":"trace.header","scenario":"wordcount","seed":7,"version":1}` + "\n")
	for i, e := range events {
		e = maps(e)
		e["seq"], e["t"] = i, 100*(i+1)
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return writeFile(t, path, b.String())
}

// maps copies an event, so that a test may number it without changing foreignEvents.
func maps(e map[string]any) map[string]any {
	c := make(map[string]any, len(e)+2)
	for k, v := range e {
		c[k] = v
	}
	return c
}

// TestCheckForeignTrace judges a trace that another engine wrote, events built by hand, with
// every property against a reference file: the correct run passes all of them (exit 0), from
// a file and from stdin, and the same run with a record committed twice fails exactly-once
// and the listener contract, and nothing else (exit 1).
func TestCheckForeignTrace(t *testing.T) {
	dir := t.TempDir()
	tracePath := writeForeignTrace(t, filepath.Join(dir, "foreign.jsonl"), foreignEvents)
	f, err := os.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	_, events, err := trace.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ref := checker.Reference{
		Guarantee: checker.GuaranteeExactlyOnce,
		Output:    checker.ExpectOnce(map[string]string{"r1": "apple=1", "r2": "pear=1"}),
		Liveness: checker.LivenessBounds{
			CheckpointAfterHealNanos: 10_000, AlignmentMaxNanos: 1_000, NotifyMaxNanos: 1_000,
			FinishTasks: []string{"source-0", "sink-0"},
		},
		TraceHash: trace.HashEvents(events),
	}
	refPath := writeFile(t, filepath.Join(dir, "ref.json"), string(checker.MarshalReference(ref)))

	r := testApp(t, nil).invoke("check", "-reference", refPath, tracePath)
	if r.code != exitOK {
		t.Fatalf("the correct foreign trace: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range checker.AllProperties {
		want := string(p) + ": pass\n"
		switch p {
		case checker.PropRestoreFidelity:
			want = string(p) + ": unexercised (" // the foreign run never restores
		case checker.PropFailureAccounting, checker.PropRecoveryBound, checker.PropAlignmentTimeout, checker.PropAbortReach,
			checker.PropTriggerPacing, checker.PropCheckpointTiming, checker.PropStateRelease:
			continue // its reference gives no policy or bound for them: not judged
		case checker.PropFailureCause, checker.PropFailoverCause:
			continue // judged only where promised: which failures an engine reports is its own
		case checker.PropExpectedSnapshot:
			continue // its reference expects no snapshot: not judged
		case checker.PropNoTriggerInFailover, checker.PropNoPendingAcrossFailover:
			want = string(p) + ": unexercised (" // the foreign run never fails over
		}
		if !strings.Contains(r.stdout, "\n"+want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	if !strings.HasSuffix(r.stdout, "\nverdict:     pass\n") {
		t.Errorf("the output does not end with the verdict:\n%s", r.stdout)
	}

	data, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	a := testApp(t, nil)
	a.stdin = bytes.NewReader(data)
	r = a.invoke("check", "-json", "-reference", refPath, "-")
	if out := decodeCheck(t, r); r.code != exitOK || out.Verdict != "pass" || out.Trace != "-" || len(out.Results) != len(checker.AllProperties)-10 { // the seven without policy or bound, the two causes and expected-snapshot
		t.Errorf("from stdin: exit %d, %+v", r.code, out)
	}

	// The sink commits tx-1 again after a restart, and the store takes it: r1 and r2 twice.
	twice := append(slices.Clone(foreignEvents[:len(foreignEvents)-2]),
		map[string]any{"kind": "task.crash", "task": "sink-0"},
		map[string]any{"kind": "task.restore", "task": "sink-0", "cp": 1, "state": "tx-1"},
		map[string]any{"kind": "sink.commit", "task": "sink-0", "cp": 1, "txn": "tx-1", "records": 2, "start": 1700},
		foreignEvents[len(foreignEvents)-2], foreignEvents[len(foreignEvents)-1])
	twicePath := writeForeignTrace(t, filepath.Join(dir, "twice.jsonl"), twice)
	r = testApp(t, nil).invoke("check", "-json", "-reference", refPath, "-check", "well-formed,exactly-once,at-least-once,listener-contract,restore-fidelity", twicePath)
	out := decodeCheck(t, r)
	want := map[string]string{"well-formed": "pass", "exactly-once": "fail", "at-least-once": "pass", "restore-fidelity": "pass", "listener-contract": "fail"}
	if r.code != exitUnexpected || out.Verdict != "fail" || !equalMaps(out.verdicts(), want) {
		t.Fatalf("committed twice: exit %d, verdicts %v, want %v\n%s", r.code, out.verdicts(), want, r.stdout)
	}
	for _, res := range out.Results {
		if res.Property != "exactly-once" {
			continue
		}
		if len(res.Violations) != 2 || res.Violations[0].Message != `record "r1" duplicated: committed 2 times, expected 1` || res.Violations[0].Seq != 19 || res.Violations[0].Task != "sink-0" {
			t.Errorf("exactly-once violations: %+v", res.Violations)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
