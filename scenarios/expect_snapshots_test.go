package scenarios

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

func readScenarioFile(t *testing.T, path string) (*Scenario, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return s, string(data)
}

// TestExpectedSnapshotFiles runs the golden test of testdata and its negative control: the
// first records the snapshots it expects on every seed tried, the second fails on
// expected-snapshot alone, its messages being the right ones in the wrong order.
func TestExpectedSnapshotFiles(t *testing.T) {
	good, _ := readScenarioFile(t, "testdata/chandy-lamport-expected-snapshot.json")
	if props := PropertiesToCheck(good); !slices.Contains(props, checker.PropExpectedSnapshot) {
		t.Fatalf("expected-snapshot not checked: %v", props)
	}
	wrong, _ := readScenarioFile(t, "testdata/chandy-lamport-expected-snapshot-wrong.json")
	for seed := uint64(1); seed <= 3; seed++ {
		res, _ := runScenario(t, good, seed)
		if res.Verdict != VerdictPass || res.Unexpected {
			t.Fatalf("seed %d: %s: %s %v %v", seed, res.Verdict, res.Why, res.Violations, res.Undecided)
		}
		res, _ = runScenario(t, wrong, seed)
		if res.Unexpected || len(res.Violations) != 1 || res.Violations[0].Property != checker.PropExpectedSnapshot ||
			!strings.Contains(res.Violations[0].Message, "channel N1->N2 recorded [1 2], expected [2 1]") {
			t.Fatalf("negative control, seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
	}
}

// TestExpectedSnapshotIDsAreTheTraces: the checkpoint ids the reference expects are those
// the coordinator gives the scripted snapshots, in script order, and each snapshot lists
// the messages it recorded.
func TestExpectedSnapshotIDsAreTheTraces(t *testing.T) {
	s, _ := readScenarioFile(t, "testdata/chandy-lamport-expected-snapshot.json")
	want := expectedSnapshots(s)
	if len(want) != 2 || want[0].Name != "script[3]" || want[1].Name != "script[8]" {
		t.Fatalf("reference snapshots: %+v", want)
	}
	_, events := runScenario(t, s, 1)
	var requested []uint64
	lists := 0
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointRequest:
			requested = append(requested, e.CP)
		case trace.KindSnapshotTaken:
			for _, a := range e.Attrs {
				if strings.HasPrefix(a.Key, trace.AttrChanMsgsPrefix) {
					lists++
				}
			}
		}
	}
	if len(requested) < 2 || requested[0] != want[0].CP || requested[1] != want[1].CP {
		t.Fatalf("requested %v, the reference expects %d and %d", requested, want[0].CP, want[1].CP)
	}
	if lists != 2 {
		t.Errorf("%d snapshots list recorded messages, want 2 (N2's and N3's of the first)", lists)
	}
}

func TestExpectedSnapshotRoundTrip(t *testing.T) {
	s, _ := readScenarioFile(t, "testdata/chandy-lamport-expected-snapshot.json")
	data := Marshal(s)
	if !strings.Contains(string(data), `"step": 8`) {
		t.Fatalf("marshalled as:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip changed the scenario:\n%s", data)
	}
	c := s.Clone()
	c.Expect.Snapshots[0].Channels["N1->N2"][0] = 9
	c.Expect.Snapshots[0].Processes["N1"] = 9
	if s.Expect.Snapshots[0].Channels["N1->N2"][0] != 1 || s.Expect.Snapshots[0].Processes["N1"] != 0 {
		t.Fatal("Clone shares the expected snapshots")
	}
}

func TestExpectedSnapshotValidation(t *testing.T) {
	_, file := readScenarioFile(t, "testdata/chandy-lamport-expected-snapshot.json")
	first := `{"step": 3, "processes": {"N1": 0, "N2": 0, "N3": 0}, "channels": {"N1->N2": [1, 2], "N1->N3": [1]}}`
	for _, tc := range []struct{ name, old, new, want string }{
		{"step out of range", first, `{"step": 30}`, "scenario.expect.snapshots[0].step: 30 is no step of the script (0 to 9)"},
		{"not a snapshot step", first, `{"step": 0}`, "scenario.expect.snapshots[0].step: script[0] is a send step, not a snapshot"},
		{"twice", first, `{"step": 8}`, "scenario.expect.snapshots[1].step: script[8] is expected already (snapshots[0])"},
		{"no process", `"N1": 0, "N2": 0, "N3": 0}, "channels": {"N1->N2"`, `"N1": 0, "N9": 0}, "channels": {"N1->N2"`, `scenario.expect.snapshots[0].processes["N9"]: "N9" is not a process`},
		{"no link", `"N1->N3": [1]`, `"N3->N3": [1]`, `scenario.expect.snapshots[0].channels["N3->N3"]: is no link of the topology (write from->to, such as N1->N2)`},
		{"no message", `"N1->N3": [1]`, `"N1->N3": [0, 1]`, `scenario.expect.snapshots[0].channels["N1->N3"][0]: a message carries 1 to 4 tokens, not 0`},
		{"not conserved", `"N1->N3": [1]`, `"N1->N3": [2]`, "scenario.expect.snapshots[0]: holds 5 tokens, but the job holds 4"},
		{"a list", `"N1->N3": [1]`, `"N1->N3": 1`, `scenario.expect.snapshots[0].channels["N1->N3"]: must be an array`},
		{"unknown field", `{"step": 8,`, `{"step": 8, "tick": 1,`, "scenario.expect.snapshots[1].tick: unknown field"},
		{"coordinator crash", `"script": [`, `"faults": [{"trigger": {"type": "at", "at_ns": 1}, "fault": {"kind": "crash.coordinator"}}], "script": [`, "which a coordinator crash can change"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(edit(t, file, tc.old, tc.new)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// Without a script there is no snapshot step to name.
	s, _ := readScenarioFile(t, "testdata/chandy-lamport-expected-snapshot.json")
	s.Script = nil
	if err := s.Validate("scenario"); err == nil || !strings.Contains(err.Error(), "need mode chandy-lamport and a script") {
		t.Fatalf("without a script: %v", err)
	}
}
