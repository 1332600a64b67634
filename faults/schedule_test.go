package faults

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestScheduleJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule(6).Draw(t, "schedule")
		if err := s.Validate(); err != nil {
			t.Fatalf("generated an invalid schedule: %v\n%s", err, s)
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSchedule(data)
		if err != nil {
			t.Fatalf("ParseSchedule(%s): %v", data, err)
		}
		if diff := cmp.Diff(s, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(data) {
			t.Fatalf("JSON not canonical:\n%s\n%s", data, again)
		}
		if back.String() != s.String() {
			t.Fatalf("String changed in the round trip:\n%s\n%s", s, back)
		}
	})
}

// The text forms are part of the artifact and shrink output: changing one is a visible change.
func TestStringIsStable(t *testing.T) {
	for _, c := range []struct {
		entry Entry
		want  string
	}{
		{Entry{Nth(3, Match{Kind: "snapshot.ack", Task: "sum-2"}), Fault{Kind: CrashTask, Task: "sum-2"}},
			"crash.task task=sum-2 when nth=3 on=snapshot.ack task=sum-2"},
		{Entry{Nth(1, Match{Kind: "checkpoint.complete"}), Fault{Kind: CrashCoordinator}},
			"crash.coordinator when nth=1 on=checkpoint.complete"},
		{Entry{At(1_500_000_000), Fault{Kind: NetPartition, From: "src-0", To: "sum-2", OneWay: true, Window: 250_000_000}},
			"net.partition from=src-0 to=sum-2 oneway window=250ms when t=1.5s"},
		{Entry{Chance(0.1, 2, Match{Kind: "barrier.recv", Task: "sum-2", CP: 4}), Fault{Kind: NetDrop, Message: MessageBarrier, Probability: 0.25, Window: 1000}},
			"net.drop message=barrier p=0.25 window=1µs when p=0.1 max=2 on=barrier.recv task=sum-2 cp=4"},
		{Entry{Trigger{Type: OnNth, Match: Match{Kind: "checkpoint.complete"}, Nth: 2, After: 2e9}, Fault{Kind: TriggerSavepoint}},
			"trigger.savepoint when nth=2 on=checkpoint.complete from=2s"},
		{Entry{Chance(1, 1, Match{}), Fault{Kind: ClockSkew, Host: "h1", SkewPPM: -5000, Window: 2e9}},
			"clock.skew host=h1 window=2s skew=-5000ppm when p=1 max=1 on=*"},
		{Entry{At(0), Fault{Kind: StorageSlow, Store: "metadata", Delay: 3e6, Window: 1e9}},
			"storage.slow store=metadata window=1s delay=3ms when t=0s"},
		{Entry{At(7), Fault{Kind: ExternalTimeout, Timeout: 60e9, Window: 120e9}},
			"external.timeout window=2m0s timeout=1m0s when t=7ns"},
	} {
		if err := (Schedule{Entries: []Entry{c.entry}}).Validate(); err != nil {
			t.Errorf("%s: %v", c.want, err)
		}
		if got := c.entry.String(); got != c.want {
			t.Errorf("String() = %q\n          want %q", got, c.want)
		}
	}
	if got := (Schedule{}).String(); got != "no faults" {
		t.Errorf("empty schedule String() = %q", got)
	}
}

// Every wrong input is rejected with an error that names the offending field.
func TestParseScheduleRejectsWithFieldNames(t *testing.T) {
	entry := func(trigger, fault string) string {
		return `{"entries":[{"trigger":` + trigger + `,"fault":` + fault + `}]}`
	}
	at := `{"type":"at","at_ns":5}`
	for _, c := range []struct {
		input, want string
	}{
		{`{"entries":[],"extra":1}`, `unknown field "extra"`},
		{entry(at, `{"kind":"crash.task","task":"a","bogus":true}`), `unknown field "bogus"`},
		{entry(`{"type":"at","when":3}`, `{"kind":"crash.coordinator"}`), `unknown field "when"`},
		{entry(at, `{"kind":"crash.everything"}`), `entries[0].fault.kind: unknown fault kind "crash.everything"`},
		{entry(at, `{}`), `entries[0].fault.kind: missing`},
		{entry(at, `{"kind":"crash.task"}`), `entries[0].fault.task: required for crash.task`},
		{entry(at, `{"kind":"crash.task","task":"a","window_ns":5}`), `entries[0].fault.window_ns: does not apply to crash.task`},
		{entry(at, `{"kind":"crash.task","task":"sum 2"}`), `entries[0].fault.task: invalid name "sum 2"`},
		{entry(at, `{"kind":"rescale","operator":"sum","parallelism":2,"restore_mode":"steal"}`), `entries[0].fault.restore_mode: unknown restore mode "steal"`},
		{entry(at, `{"kind":"crash.task","task":"sum-0","restore_mode":"claim"}`), `entries[0].fault.restore_mode:`},
		{entry(at, `{"kind":"crash.task","task":"coordinator"}`), `entries[0].fault.task: the coordinator is crashed with crash.coordinator`},
		{entry(at, `{"kind":"net.partition","from":"a","window_ns":5}`), `entries[0].fault.to: required for net.partition`},
		{entry(at, `{"kind":"net.partition","from":"a","to":"a","window_ns":5}`), `entries[0].fault.to: a link needs two different endpoints`},
		{entry(at, `{"kind":"net.drop","message":"data","probability":0.5,"window_ns":5}`), `entries[0].fault.message: unknown message class "data"`},
		{entry(at, `{"kind":"net.drop","message":"ack","probability":1.5,"window_ns":5}`), `entries[0].fault.probability: must be in (0, 1]`},
		{entry(at, `{"kind":"net.drop","message":"ack","probability":-0.5,"window_ns":5}`), `entries[0].fault.probability: must be in (0, 1]`},
		{entry(at, `{"kind":"net.clog","from":"a","to":"b","window_ns":-5}`), `entries[0].fault.window_ns: must be in [1,`},
		{entry(at, `{"kind":"net.clog","from":"a","to":"b","window_ns":86400000000001}`), `entries[0].fault.window_ns: must be in [1,`},
		{entry(at, `{"kind":"clock.skew","host":"h","skew_ppm":2000000,"window_ns":5}`), `entries[0].fault.skew_ppm: must be in`},
		{entry(at, `{"kind":"net.clog","from":"a","to":"b","window_ns":"5"}`), `entries.fault.window_ns`},
		{entry(`{}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.type: missing`},
		{entry(`{"type":"soon"}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.type: unknown trigger type "soon"`},
		{entry(`{"type":"at","at_ns":-1}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.at_ns: must be in [0,`},
		{entry(`{"type":"nth","kind":"snapshot.ack"}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.nth: must be in [1,`},
		{entry(`{"type":"nth","nth":1,"at_ns":4}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.at_ns: does not apply to a trigger of type nth`},
		{entry(`{"type":"at","kind":"snapshot.ack"}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.kind: does not apply to a trigger of type at`},
		{entry(`{"type":"nth","nth":3,"kind":"snapshot.ak"}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.kind: unknown or unmatchable trace kind "snapshot.ak"`},
		{entry(`{"type":"nth","nth":3,"kind":"fault"}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.kind: unknown or unmatchable trace kind "fault"`},
		{entry(`{"type":"chance","probability":0.5}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.max: must be in [1,`},
		{entry(`{"type":"chance","max":1}`, `{"kind":"crash.coordinator"}`), `entries[0].trigger.probability: must be in (0, 1]`},
		{`{"entries":[]} {}`, `unexpected data after the schedule`},
		{`{"entries":[`, `unexpected EOF`},
	} {
		_, err := ParseSchedule([]byte(c.input))
		if err == nil {
			t.Errorf("accepted %s", c.input)
			continue
		}
		if !strings.HasPrefix(err.Error(), "faults: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSchedule(%s)\n  error %q\n  want it to contain %q", c.input, err, c.want)
		}
	}
}

func TestParseScheduleAcceptsEmpty(t *testing.T) {
	for _, input := range []string{`{}`, `{"entries":null}`, `{"entries":[]}`, " {\"entries\":[]}\n"} {
		s, err := ParseSchedule([]byte(input))
		if err != nil || s.Entries != nil {
			t.Errorf("ParseSchedule(%q) = %v, %v", input, s, err)
		}
	}
	if data, _ := json.Marshal(Schedule{}); string(data) != `{"entries":[]}` {
		t.Errorf("empty schedule marshals as %s", data)
	}
}

func TestOutOfModel(t *testing.T) {
	var in, out []Kind
	for _, k := range Kinds() {
		if k.OutOfModel() {
			out = append(out, k)
		} else {
			in = append(in, k)
		}
	}
	if want := []Kind{DataDrop, DataDuplicate, DataReorder, StorageLost, ExternalTimeout}; !cmp.Equal(out, want) {
		t.Errorf("out-of-model kinds = %v, want %v", out, want)
	}
	s := Schedule{Entries: []Entry{{At(1), Fault{Kind: CrashTask, Task: "a"}}}}
	if s.OutOfModel() {
		t.Error("a crash made the schedule out of model")
	}
	s.Entries = append(s.Entries, Entry{At(2), Fault{Kind: StorageLost, Probability: 1, Window: 1}})
	if !s.OutOfModel() || !s.Entries[1].Fault.OutOfModel() {
		t.Error("storage.lost did not make the schedule out of model")
	}
}

func FuzzParseSchedule(f *testing.F) {
	for _, seed := range []string{
		`{"entries":[{"trigger":{"type":"nth","kind":"snapshot.ack","task":"sum-2","nth":3},"fault":{"kind":"crash.task","task":"sum-2"}}]}`,
		`{"entries":[{"trigger":{"type":"at","at_ns":1500},"fault":{"kind":"net.partition","from":"a","to":"b","oneway":true,"window_ns":100}}]}`,
		`{"entries":[{"trigger":{"type":"chance","probability":0.5,"max":2},"fault":{"kind":"net.drop","message":"ack","probability":0.1,"window_ns":9}}]}`,
		`{"entries":[{"trigger":{"type":"at"},"fault":{"kind":"clock.skew","host":"h","skew_ppm":-7,"window_ns":1}}]}`,
		`{"entries":[]}`,
		`{}`,
		`[]`,
		`{"entries":[{"trigger":{"type":"at","at_ns":1e3},"fault":{"kind":"crash.coordinator"}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSchedule(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("accepted but cannot marshal: %v", err)
		}
		back, err := ParseSchedule(out)
		if err != nil {
			t.Fatalf("accepted %s but not its own output %s: %v", data, out, err)
		}
		if diff := cmp.Diff(s, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
		if s.String() != back.String() {
			t.Fatalf("String changed in the round trip")
		}
	})
}
