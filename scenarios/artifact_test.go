package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// sampleArtifact is the artifact of a failed run of a built-in negative control.
func sampleArtifact(t testing.TB) *Artifact {
	s, err := Lookup("control-reorder-aligned")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewSimulation().Plan(s, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{
		Verdict:   VerdictFail,
		TraceHash: strings.Repeat("ab", 8),
		Events:    1234,
		Violations: []checker.Violation{{
			Property: checker.PropConsistentCut, Message: "recv.source-0 + chan.source-0 = 40, sent = 41", Seq: 812, T: 1_250_000_000, Task: "sum-0", CP: 4,
		}},
	}
	return NewArtifact(p, r, "test-build")
}

func TestArtifactRoundTrip(t *testing.T) {
	a := sampleArtifact(t)
	back, err := ParseArtifact(MarshalArtifact(a))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, back); diff != "" {
		t.Errorf("round trip changed the artifact (-want +got):\n%s", diff)
	}
}

// TestArtifactVersion2Reads: an artifact written before version 3 (by the build before it,
// kept in testdata as it was written) still reads, with its violations in checker's type and
// text form, and replays to the trace hash it records.
func TestArtifactVersion2Reads(t *testing.T) {
	data, err := os.ReadFile("testdata/artifact-v2-control-lost-metadata-seed1-fail.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseArtifact(data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != VerdictFail || len(a.Violations) == 0 || a.Violations[0].Property != checker.PropExactlyOnce {
		t.Fatalf("read verdict %s with violations %v", a.Verdict, a.Violations)
	}
	const want = `exactly-once seq=134 t=169983327 task=sink-1 cp=1: record "source:0:0" duplicated: committed 2 times, expected 1`
	if got := a.Violations[0].String(); got != want {
		t.Errorf("first violation reads\n %s\nwant\n %s", got, want)
	}
	plan, err := NewSimulation().Plan(a.Scenario, a.Seed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(NewSimulation(), plan, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The engine changed since (a failover now waits for every task to run again), so the
	// trace is not the recorded one; the verdict and the properties violated are.
	props := func(vs []checker.Violation) (out []checker.Property) {
		for _, v := range vs {
			out = append(out, v.Property)
		}
		return out
	}
	if res.Verdict != a.Verdict || !slices.Equal(props(res.Violations), props(a.Violations)) {
		t.Errorf("replay: %s %v, the artifact %s %v", res.Verdict, res.Violations, a.Verdict, a.Violations)
	}
}

// TestArtifactVersion2UndecidedReadsAsUnknown: version 2 called a run whose properties were
// not all decided limit, with a limit_reason "undecided: ..."; it reads as unknown now, what
// a replay of it says, and keeps what was undecided. A true limit stays a limit.
func TestArtifactVersion2UndecidedReadsAsUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		verdict      string
		limit        string
		undecided    []string
	}{
		{"undecided", "undecided: sink-visibility (no sink.read: no reader of the external store to judge)", VerdictUnknown, "",
			[]string{"sink-visibility (no sink.read: no reader of the external store to judge)"}},
		{"a run limit", "the simulation stopped (max events) before the liveness phase ended", VerdictLimit,
			"the simulation stopped (max events) before the liveness phase ended", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := sampleArtifact(t)
			a.Version, a.Verdict, a.LimitReason, a.Violations = 2, VerdictLimit, tc.reason, nil
			a.TraceHash = strings.Repeat("ab", 32) // version 2 recorded trace hash version 1
			data := MarshalArtifact(a)             // as version 2 wrote it: no undecided field
			if strings.Contains(string(data), `"undecided"`) {
				t.Fatal("a version 2 artifact has no undecided field")
			}
			back, err := ParseArtifact(data)
			if err != nil {
				t.Fatal(err)
			}
			if back.Version != 3 || back.Verdict != tc.verdict || back.LimitReason != tc.limit || !slices.Equal(back.Undecided, tc.undecided) {
				t.Errorf("read as version %d, %s, limit reason %q, undecided %q", back.Version, back.Verdict, back.LimitReason, back.Undecided)
			}
		})
	}
}

func TestParseArtifactRejectsDamage(t *testing.T) {
	good := string(MarshalArtifact(sampleArtifact(t)))
	for _, tc := range []struct {
		name, input, want string
	}{
		{"empty", "", "artifact: invalid JSON"},
		{"truncated", good[:len(good)/2], "artifact: invalid JSON"},
		{"a scenario, not an artifact", string(Marshal(Builtins()[0])), "artifact.name: unknown field"},
		{"newer version", strings.Replace(good, `"artifact_version": 4`, `"artifact_version": 5`, 1), "artifact.artifact_version: this build reads versions 2 to 4, not 5"},
		{"version 1, without a digest", strings.Replace(good, `"artifact_version": 4`, `"artifact_version": 1`, 1), "artifact.artifact_version: this build reads versions 2 to 4, not 1"},
		{"bad hash", strings.Replace(good, strings.Repeat("ab", 8), "abc", 1), "artifact.trace_hash: must be 16 lower-case hex digits in artifact version 4 (trace hash version 2)"},
		{"a version 1 hash in version 4", strings.Replace(good, strings.Repeat("ab", 8), strings.Repeat("ab", 32), 1), "artifact.trace_hash: must be 16 lower-case hex digits in artifact version 4"},
		{"a version 2 hash in version 3", strings.Replace(good, `"artifact_version": 4`, `"artifact_version": 3`, 1), "artifact.trace_hash: must be 64 lower-case hex digits in artifact version 3 (trace hash version 1)"},
		{"bad verdict", replaceLast(good, `"verdict": "fail"`, `"verdict": "meh"`), `artifact.verdict: "meh" is not one of pass, fail, unknown, limit`},
		{"missing scenario", strings.Replace(good, `"scenario": {`, `"scenario": null, "x": {`, 1), "artifact.x: unknown field"},
		{"broken scenario", strings.Replace(good, `"mode": "aligned"`, `"mode": "sideways"`, 1), `artifact.scenario.mode: "sideways" is not one of`},
		{"schedule names a missing task", replaceLast(good, `"from": "source-0"`, `"from": "source-9"`), `artifact.schedule.entries[1].fault.from: no endpoint "source-9"`},
		{"schedule without one of the scenario's faults", dropLastScheduleEntry(t), "artifact.schedule: differs from artifact.scenario.faults"},
		{"schedule changed", replaceLast(good, `"at_ns": 50000000`, `"at_ns": 60000000`), "artifact.schedule: differs from artifact.scenario.faults"},
		{"scenario edited", strings.Replace(good, `"records": 200`, `"records": 199`, 1), "artifact.digest: does not match the artifact's content"},
		{"seed edited", strings.Replace(good, `"seed": 7`, `"seed": 8`, 1), "artifact.digest: does not match"},
		{"recorded hash edited", strings.Replace(good, strings.Repeat("ab", 8), strings.Repeat("cd", 8), 1), "artifact.digest: does not match"},
		{"digest missing", withoutDigest(good), "artifact.digest: is required"},
		{"fail without violations", replaceLast(good, `"property": "consistent-cut"`, `"property": ""`), "artifact.violations[0].property: is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseArtifact([]byte(tc.input))
			if err == nil {
				t.Fatal("ParseArtifact accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
}

// dropLastScheduleEntry removes the last entry of an artifact's schedule, leaving the
// scenario's faults alone, and writes the artifact again with a digest that fits.
func dropLastScheduleEntry(t *testing.T) string {
	a := sampleArtifact(t)
	a.Schedule.Entries = a.Schedule.Entries[:len(a.Schedule.Entries)-1]
	return string(MarshalArtifact(a))
}

// withoutDigest removes the digest line of an artifact file.
func withoutDigest(data string) string {
	i := strings.LastIndex(data, `,
  "digest": "`)
	if i < 0 {
		panic("withoutDigest: no digest")
	}
	return data[:i] + "\n}\n"
}

// Any single byte changed in an artifact file either makes it bad input or leaves it
// meaning exactly what it meant (a change of white space, say): never an artifact of a
// different run. Replay compares a run with its artifact, so a quietly different artifact
// would read as nondeterminism.
func TestArtifactByteChangesAreCaught(t *testing.T) {
	original := sampleArtifact(t)
	good := MarshalArtifact(original)
	want, err := ParseArtifact(good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range good {
		for _, change := range []func(byte) byte{
			func(c byte) byte { return c ^ 0x01 },
			func(c byte) byte {
				if c >= '0' && c <= '8' {
					return c + 1
				}
				return c ^ 0x20
			},
		} {
			data := slices.Clone(good)
			data[i] = change(data[i])
			got, err := ParseArtifact(data)
			if err == nil && !cmp.Equal(got, want) {
				t.Fatalf("byte %d changed (%q -> %q) gives a different artifact that parses:\n%s",
					i, good[i], data[i], cmp.Diff(want, got))
			}
		}
	}
}

// replaceLast replaces the last occurrence of old in s: in an artifact, the one after the
// inline scenario.
func replaceLast(s, old, new string) string {
	i := strings.LastIndex(s, old)
	if i < 0 {
		panic("replaceLast: " + old + " not found")
	}
	return s[:i] + new + s[i+len(old):]
}

func TestSaveArtifactNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	a := sampleArtifact(t)
	var paths []string
	for range 3 {
		p, err := SaveArtifact(dir, a)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	want := []string{"control-reorder-aligned-seed7-fail.json", "control-reorder-aligned-seed7-fail-2.json", "control-reorder-aligned-seed7-fail-3.json"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, name := range paths {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseArtifact(data); err != nil {
			t.Errorf("%s does not read back: %v", name, err)
		}
	}
}

func FuzzParseArtifact(f *testing.F) {
	f.Add(MarshalArtifact(sampleArtifact(f)))
	f.Add([]byte(`{"artifact_version": 1, "scenario": null}`))
	f.Add([]byte(`{"artifact_version": 1, "schedule": {"entries": [{"fault": {"kind": "net.drop"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseArtifact(data)
		if err != nil {
			return
		}
		back, err := ParseArtifact(MarshalArtifact(a))
		if err != nil {
			t.Fatalf("accepted artifact does not parse back: %v", err)
		}
		if diff := cmp.Diff(a, back); diff != "" {
			t.Fatalf("round trip changed the artifact (-want +got):\n%s", diff)
		}
	})
}

// TestArtifactVersion3ReplaysUnderItsHash: an artifact written before trace hash version 2
// records a hash of version 1, which its replay computes too (RunOptions.HashV1), so that
// an unchanged run still matches the artifact.
func TestArtifactVersion3ReplaysUnderItsHash(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	plan, res, err := Execute(NewSimulation(), s, 1, RunOptions{HashV1: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TraceHash) != trace.HashDigits || len(res.TraceHashV1) != trace.HashV1Digits {
		t.Fatalf("hashes %q and %q", res.TraceHash, res.TraceHashV1)
	}
	a := NewArtifact(plan, res, "an older build")
	if a.HashV1() {
		t.Fatal("a new artifact claims a version 1 hash")
	}
	a.Version, a.TraceHash = 3, res.TraceHashV1
	back, err := ParseArtifact(MarshalArtifact(a))
	if err != nil {
		t.Fatal(err)
	}
	if !back.HashV1() {
		t.Fatal("a version 3 artifact does not say its hash is of version 1")
	}
	again, err := Run(NewSimulation(), plan, RunOptions{HashV1: back.HashV1()})
	if err != nil {
		t.Fatal(err)
	}
	if again.TraceHashV1 != back.TraceHash || again.TraceHash != res.TraceHash {
		t.Errorf("replay hashes %s (version 1 %s), recorded %s", again.TraceHash, again.TraceHashV1, back.TraceHash)
	}
}
