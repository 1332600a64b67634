package checker

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// exampleReferenceFile is the format's example from the package comment of reference_file.go.
const exampleReferenceFile = `{
  "version": 1,
  "guarantee": "exactly-once",
  "liveness": {"checkpoint_after_heal_ns": 4000000000, "alignment_max_ns": 2000000000,
               "notify_max_ns": 2000000000, "recovery_max_ns": 4000000000,
               "switch_max_ns": 100000000, "abort_reach_max_ns": 2000000000,
               "reaction_max_ns": 2000000, "finish_tasks": ["source-0", "sink-0"]},
  "policy": {"tolerable_failures": 3, "retained_checkpoints": 2, "alignment_timeout_ns": 50000000,
             "interval_ns": 100000000, "min_pause_ns": 0, "timeout_ns": 1000000000,
             "max_concurrent": 1, "max_pending_transactions": 64, "mode": "aligned-with-timeout"},
  "trace_hash": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  "output": {
    "source:0:1": {"value": "7", "count": 1},
    "source:0:2": {"value": "12"}
  }
}`

func TestParseReferenceExample(t *testing.T) {
	ref, err := ParseReference([]byte(exampleReferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	want := Reference{
		Guarantee: GuaranteeExactlyOnce,
		Output:    map[string]Expected{"source:0:1": {Value: "7", Count: 1}, "source:0:2": {Value: "12", Count: 1}},
		Liveness: LivenessBounds{
			CheckpointAfterHealNanos: 4_000_000_000, AlignmentMaxNanos: 2_000_000_000, NotifyMaxNanos: 2_000_000_000,
			RecoveryMaxNanos: 4_000_000_000, SwitchMaxNanos: 100_000_000, AbortReachMaxNanos: 2_000_000_000,
			ReactionMaxNanos: 2_000_000, FinishTasks: []string{"source-0", "sink-0"},
		},
		Policy: Policy{TolerableFailures: Tolerating(3), RetainedCheckpoints: 2, AlignmentTimeoutNanos: 50_000_000,
			IntervalNanos: Nanos(100_000_000), MinPauseNanos: Nanos(0), TimeoutNanos: 1_000_000_000,
			MaxConcurrent: 1, MaxPendingTransactions: 64, Mode: "aligned-with-timeout"},
		TraceHash: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	}
	if !reflect.DeepEqual(ref, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", ref, want)
	}
	assertRoundTrip(t, ref)
}

// TestParseReferenceEmpty: an empty object is the zero Reference, with no output reference;
// an empty output expects nothing to be committed, which is not the same.
func TestParseReferenceEmpty(t *testing.T) {
	ref, err := ParseReference([]byte(`{}`))
	if err != nil || !reflect.DeepEqual(ref, Reference{}) {
		t.Errorf("{}: %+v, %v", ref, err)
	}
	ref, err = ParseReference([]byte(`{"output": {}, "liveness": {"finish_tasks": []}}`))
	if err != nil || ref.Output == nil || len(ref.Output) != 0 || ref.Liveness.FinishTasks != nil {
		t.Errorf(`empty output: %+v, %v`, ref, err)
	}
	assertRoundTrip(t, ref)
	assertRoundTrip(t, Reference{})
}

func TestParseReferenceErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{``, "checker: reference: empty file"},
		{`[]`, "checker: reference: must be an object, got an array"},
		{"{\n\"guarantee\": \"exactly-once\",\n}", "checker: reference: line 3: invalid JSON"},
		{`{} {}`, "invalid JSON"},
		{`{"guarantee": "twice"}`, `reference.guarantee: "twice" is not one of "exactly-once", "at-least-once"`},
		{`{"guarantee": 1}`, "reference.guarantee: must be a string, got a number"},
		{`{"version": 2}`, "reference.version: version 2, this build reads 1"},
		{`{"colour": "red"}`, "reference.colour: unknown field (known: version,"},
		{`{"guarantee": "exactly-once", "guarantee": "at-least-once"}`, "reference.guarantee: duplicate key"},
		{`{"token_total": -1}`, "reference.token_total: must be a non-negative integer below 2^63, got -1"},
		{`{"token_total": 1.5}`, "got 1.5"},
		{`{"token_total": "3"}`, "reference.token_total: must be a non-negative integer, got a string"},
		{`{"trace_hash": "ABC"}`, `reference.trace_hash: must be 16 lower-case hex digits (or 64, a version 1 trace hash), got "ABC"`},
		{`{"liveness": {"notify_max": 5}}`, "reference.liveness.notify_max: unknown field (known: checkpoint_after_heal_ns,"},
		{`{"liveness": {"finish_tasks": "sink-0"}}`, "reference.liveness.finish_tasks: must be an array of task names, got a string"},
		{`{"liveness": {"finish_tasks": ["", "x"]}}`, "reference.liveness.finish_tasks[0]: empty task name"},
		{`{"liveness": {"finish_tasks": [null]}}`, "reference.liveness.finish_tasks[0]: must be a string, got null"},
		{`{"output": []}`, "reference.output: must be an object, got an array"},
		{`{"output": {"r1": {"value": "1", "cout": 1}}}`, `reference.output["r1"].cout: unknown field (known: value, count, split, offset)`},
		{`{"output": {"r1": {"value": 1}}}`, `reference.output["r1"].value: must be a string, got a number`},
		{`{"output": {"r1": {"count": 1}}}`, `reference.output["r1"]: missing value`},
		{`{"output": {"r1": {"value": "1", "count": -1}}}`, `reference.output["r1"].count: must be a non-negative integer`},
		{`{"output": {"r1": {"value": "1", "count": 99999999999}}}`, `reference.output["r1"].count: must be at most`},
		{`{"output": {"": {"value": "1"}}}`, `reference.output[""]: empty record id`},
		{`{"output": {"r1": {"value": "1"}, "r1": {"value": "2"}}}`, `reference.output["r1"]: duplicate key`},
		{`{"output": {"r1": "1"}}`, `reference.output["r1"]: must be an object, got a string`},
		{`{"policy": {"retained_checkpoints": 0}}`, "reference.policy.retained_checkpoints: must be from 1 to 1024, got 0"},
		{`{"policy": {"retained_checkpoints": 1025}}`, "reference.policy.retained_checkpoints: must be from 1 to 1024, got 1025"},
		{`{"policy": {"retained": 2}}`, "reference.policy.retained: unknown field (known: tolerable_failures, retained_checkpoints,"},
		{`{"promises": "liveness"}`, "reference.promises: must be an array of property names, got a string"},
		{`{"promises": ["liveness", "exactly-twice"]}`, `reference.promises[1]: "exactly-twice" is not a property`},
		{`{"promises": ["liveness", "liveness"]}`, `reference.promises[1]: "liveness" is listed twice`},
		{`{"promises": [1]}`, "reference.promises[0]: must be a string, got a number"},
		{`{"policy": {"interval": 5}}`, "reference.policy.interval: unknown field (known: tolerable_failures, retained_checkpoints, alignment_timeout_ns, interval_ns,"},
		{`{"policy": {"interval_ns": -5}}`, "reference.policy.interval_ns: must be a non-negative integer"},
		{`{"policy": {"timeout_ns": 0}}`, "reference.policy.timeout_ns: a checkpoint timeout must be positive"},
		{`{"policy": {"max_concurrent": 0}}`, "reference.policy.max_concurrent: must be from 1 to"},
		{`{"policy": {"mode": "exactly-once"}}`, `reference.policy.mode: "exactly-once" is not one of aligned, unaligned,`},
		{`{"liveness": {"reaction_max_ns": "1ms"}}`, "reference.liveness.reaction_max_ns: must be a non-negative integer, got a string"},
	} {
		_, err := ParseReference([]byte(tc.file))
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.file, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "checker: reference") || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got %q\nwant one line starting \"checker: reference\" and containing %q", tc.file, msg, tc.want)
		}
	}
}

// TestReferencePolicyRoundTrip: a zero interval and a zero pause are settings and survive
// the file, unlike settings left out; and the modes a policy may name are the protocol's.
func TestReferencePolicyRoundTrip(t *testing.T) {
	assertRoundTrip(t, Reference{Policy: Policy{IntervalNanos: Nanos(0), MinPauseNanos: Nanos(0)}})
	assertRoundTrip(t, Reference{Policy: Policy{TimeoutNanos: 5, MaxConcurrent: 3, Mode: "at-least-once"}})
	ref, err := ParseReference([]byte(`{"policy": {"tolerable_failures": 1}}`))
	if err != nil || ref.Policy.IntervalNanos != nil || ref.Policy.MinPauseNanos != nil {
		t.Errorf("a policy without interval or pause: %+v, %v", ref.Policy, err)
	}
	var modes []string
	for m := protocol.ModeAligned; m <= protocol.ModeAtLeastOnce; m++ {
		modes = append(modes, m.String())
	}
	if !reflect.DeepEqual(modes, policyModes) {
		t.Errorf("policy modes %v, the protocol's %v", policyModes, modes)
	}
}

// TestReferencePromisesRoundTrip: promises survive the file, an empty list stays empty (it
// promises nothing), and a file without the field reads as promising nothing in particular.
func TestReferencePromisesRoundTrip(t *testing.T) {
	assertRoundTrip(t, Reference{Guarantee: GuaranteeAtLeastOnce, Promises: []Property{PropAtLeastOnce, PropLiveness}})
	assertRoundTrip(t, Reference{Promises: []Property{}})
	ref, err := ParseReference([]byte(`{"guarantee": "exactly-once"}`))
	if err != nil || ref.Promises != nil {
		t.Errorf("a file without promises: %+v, %v", ref, err)
	}
}

// TestReferenceRetainedCheckpointsRoundTrip: the retained-checkpoint count survives the
// file alone and beside the other policy fields; a file without it reads as not knowing it.
func TestReferenceRetainedCheckpointsRoundTrip(t *testing.T) {
	assertRoundTrip(t, Reference{Policy: Policy{RetainedCheckpoints: 1}})
	assertRoundTrip(t, Reference{Policy: Policy{TolerableFailures: Tolerating(0), RetainedCheckpoints: 1024}})
	ref, err := ParseReference([]byte(`{"policy": {"tolerable_failures": 2}}`))
	if err != nil || ref.Policy.RetainedCheckpoints != 0 {
		t.Errorf("a file without retained_checkpoints: %+v, %v", ref, err)
	}
}

func TestReadReferenceTooLarge(t *testing.T) {
	big := strings.NewReader(`{"output": {"r": {"value": "` + strings.Repeat("x", MaxReferenceFileBytes) + `"}}}`)
	if _, err := ReadReference(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("got %v", err)
	}
}

// assertRoundTrip checks that ref's file form reads back as ref, and writes itself again
// byte for byte.
func assertRoundTrip(t *testing.T, ref Reference) {
	t.Helper()
	data := MarshalReference(ref)
	back, err := ParseReference(data)
	if err != nil {
		t.Fatalf("MarshalReference wrote a file ParseReference refuses: %v\n%s", err, data)
	}
	if !reflect.DeepEqual(back, ref) {
		t.Fatalf("round trip changed the reference:\n%+v\n%+v\n%s", ref, back, data)
	}
	if again := MarshalReference(back); string(again) != string(data) {
		t.Fatalf("second encoding differs:\n%s\n%s", data, again)
	}
}

// FuzzReadReference: the parser never panics, its errors are one line, and whatever it
// accepts round-trips through MarshalReference.
func FuzzReadReference(f *testing.F) {
	for _, seed := range []string{
		exampleReferenceFile,
		`{}`,
		`{"output": {}}`,
		`{"output": {"a\u0000b": {"value": "<&>\"", "count": 0}}}`,
		`{"liveness": {"finish_tasks": ["a", "a"]}, "token_total": 9223372036854775807}`,
		`{"version": 1, "guarantee": "", "trace_hash": "` + strings.Repeat("a", 64) + `"}`,
		`{"output": {"r": {"value": "1", "count": 1e3}}}`,
		`{"output": {"r": {"value": "\ud800"}}}`,
		"{\"output\":\n[1,\n2",
		`nul`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, err := ParseReference(data)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "checker: reference") {
				t.Fatalf("error is not one line starting \"checker: reference\": %q", msg)
			}
			return
		}
		assertRoundTrip(t, ref)
	})
}

// A token workload of zero tokens keeps its kind through a reference file: written without
// token_total it would read back as no token workload, and conservation go unjudged.
func TestReferenceFileKeepsAZeroTokenWorkload(t *testing.T) {
	ref := Reference{TokenWorkload: true}
	back, err := ParseReference(MarshalReference(ref))
	if err != nil {
		t.Fatal(err)
	}
	if !back.TokenWorkload || back.TokenTotal != 0 {
		t.Fatalf("read back %+v", back)
	}
}
