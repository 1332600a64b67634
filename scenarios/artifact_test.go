package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/checker"
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

// TestArtifactsBeforeVersion5Refused: artifacts of the engine before artifact version 5
// (which digested snapshot state with SHA-256) cannot replay to their trace hash on this
// build, so they are refused with one line naming both versions and the build that wrote
// them: a version 2 file kept in testdata as it was written, and versions 3 and 4 made here.
func TestArtifactsBeforeVersion5Refused(t *testing.T) {
	data, err := os.ReadFile("testdata/artifact-v2-control-lost-metadata-seed1-fail.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[int][]byte{2: data}
	for _, v := range []int{3, 4} {
		a := sampleArtifact(t)
		a.Version = v
		files[v] = MarshalArtifact(a)
	}
	for v, data := range files {
		_, err := ParseArtifact(data)
		if err == nil {
			t.Fatalf("version %d read", v)
		}
		msg := err.Error()
		want := fmt.Sprintf("version %d is refused: this build writes version %d,", v, ArtifactVersion)
		if !strings.Contains(msg, want) || strings.Contains(msg, "\n") || !strings.Contains(msg, "replay it with the build that wrote it") {
			t.Errorf("version %d refused with %q, want one line with %q", v, msg, want)
		}
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
		{"newer version", strings.Replace(good, `"artifact_version": 5`, `"artifact_version": 6`, 1), "artifact.artifact_version: this build reads version 5, not 6"},
		{"version 1, without a digest", strings.Replace(good, `"artifact_version": 5`, `"artifact_version": 1`, 1), "artifact.artifact_version: this build reads version 5, not 1"},
		{"bad hash", strings.Replace(good, strings.Repeat("ab", 8), "abc", 1), "artifact.trace_hash: must be 16 lower-case hex digits (trace hash version 2)"},
		{"a version 1 hash", strings.Replace(good, strings.Repeat("ab", 8), strings.Repeat("ab", 32), 1), "artifact.trace_hash: must be 16 lower-case hex digits"},
		{"version 4", strings.Replace(good, `"artifact_version": 5`, `"artifact_version": 4`, 1), "artifact.artifact_version: version 4 is refused: this build writes version 5"},
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
