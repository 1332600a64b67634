package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// minimal is the smallest scenario file Parse accepts; defaults fill in the rest.
const minimal = `{
  "name": "tiny",
  "mode": "aligned",
  "topology": {"kind": "keyed-shuffle", "parallelism": 2},
  "workload": {"kind": "keyed-sum"},
  "sink": {"kind": "two-phase-commit"},
  "expect": {"verdict": "pass"}
}`

func TestParseAppliesDefaults(t *testing.T) {
	s, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.Records != defaultRecords || s.Workload.Keys != defaultKeys {
		t.Errorf("workload defaults not applied: %+v", s.Workload)
	}
	if s.Checkpoint.Interval != defaultInterval || s.Checkpoint.Timeout != defaultTimeout {
		t.Errorf("checkpoint defaults not applied: %+v", s.Checkpoint)
	}
	if s.Seeds == nil || *s.Seeds != (SeedRange{First: 1, Last: defaultSeedCount}) {
		t.Errorf("seeds = %v, want 1-%d", s.Seeds, defaultSeedCount)
	}
	if want := s.Limits.FaultPhase + s.Limits.HealPhase + 2*s.Limits.LivenessBound; s.Limits.MaxVirtualTime != want {
		t.Errorf("max_virtual_time = %s, want %s", s.Limits.MaxVirtualTime, want)
	}
	if s.Topology.Stages != 0 || s.Topology.Inputs != 0 {
		t.Errorf("defaults leaked into fields the topology does not use: %+v", s.Topology)
	}
}

// withField returns minimal with one top-level field set to the JSON text value.
func withField(key, value string) string { return withFields(key, value) }

// withFields returns minimal with top-level fields set: key, value, key, value, ...
func withFields(kv ...string) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(minimal), &fields); err != nil {
		panic(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		fields[kv[i]] = json.RawMessage(kv[i+1])
	}
	data, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestParseErrorsNameTheField(t *testing.T) {
	crash := `{"trigger": {"type": "at", "at_ns": 5}, "fault": {"kind": "crash.task", "task": "sum-1"}}`
	for _, tc := range []struct {
		name, input, want string
	}{
		{"empty", ``, "scenario: invalid JSON: unexpected end of input"},
		{"not an object", `[1]`, "scenario: must be an object, not an array"},
		{"truncated", `{"name": "x", "mode": `, "scenario: invalid JSON"},
		{"trailing data", minimal + ` {}`, "unexpected data after the value"},
		{"syntax error position", "{\n  \"name\": x\n}", "line 2 column"},
		{"unknown field", withField("colour", `"red"`), "scenario.colour: unknown field"},
		{"unknown nested field", withField("topology", `{"kind": "pipeline", "parallelism": 2, "stage": 3}`), "scenario.topology.stage: unknown field"},
		{"duplicate key", strings.Replace(minimal, `"mode": "aligned",`, `"mode": "aligned", "mode": "unaligned",`, 1), `scenario.mode: duplicate key "mode"`},
		{"wrong type", withField("workload", `{"kind": "keyed-sum", "records": "many"}`), "scenario.workload.records: must be an integer, not a string"},
		{"fractional integer", withField("workload", `{"kind": "keyed-sum", "records": 1.5}`), "scenario.workload.records: must be an integer in range, not 1.5"},
		{"null where a value is needed", withField("mode", `null`), "scenario.mode: must not be null"},
		{"bad duration", withField("checkpoint", `{"interval": "soon"}`), `scenario.checkpoint.interval: must be a duration such as "250ms"`},
		{"bare number duration", withField("checkpoint", `{"interval": 100}`), "scenario.checkpoint.interval: must be a string, not a number"},
		{"negative duration", withField("checkpoint", `{"interval": "-1s"}`), "scenario.checkpoint.interval: must be >= 0"},
		{"unknown mode", withField("mode", `"eventual"`), `scenario.mode: "eventual" is not one of aligned, unaligned`},
		{"missing mode", withField("mode", `""`), "scenario.mode: is required"},
		{"bad name", withField("name", `"Has Spaces"`), "scenario.name:"},
		{"more in flight than the protocol's tables hold", withField("checkpoint", `{"max_concurrent": 17}`), "scenario.checkpoint.max_concurrent: must be between 1 and 16, not 17"},
		{"parallelism out of range", withField("topology", `{"kind": "keyed-shuffle", "parallelism": 5000}`), "scenario.topology.parallelism: must be between 1 and 1024, not 5000"},
		{"key groups out of range", withField("topology", `{"kind": "keyed-shuffle", "parallelism": 2, "max_parallelism": 40000}`), "scenario.topology.max_parallelism: must be between 1 and 32768, not 40000"},
		{"too few key groups", withField("topology", `{"kind": "keyed-shuffle", "parallelism": 4, "max_parallelism": 3}`), "scenario.topology.max_parallelism: 3 is below the parallelism 4 of source: each task needs a key group"},
		{"setting the shape does not use", withField("topology", `{"kind": "keyed-shuffle", "inputs": 3}`), "scenario.topology.inputs: not used by topology keyed-shuffle"},
		{"sink missing", withField("sink", `null`), "scenario.sink: is required for workload keyed-sum"},
		{"expected property missing", withField("expect", `{"verdict": "fail"}`), "scenario.expect.property: is required"},
		{"expected property unknown", withField("expect", `{"verdict": "fail", "property": "speed"}`), `scenario.expect.property: "speed" is not one of`},
		{"property with pass", withField("expect", `{"verdict": "pass", "property": "liveness"}`), "scenario.expect.property: not used when the expected verdict is pass"},
		{"negative trigger time", withField("faults", "["+crash+","+crash+`,{"trigger": {"type": "at", "at_ns": -5}, "fault": {"kind": "crash.task", "task": "sum-1"}}]`), "scenario.faults[2].trigger.at_ns: must be in [0,"},
		{"trigger after the fault phase", withField("faults", "["+crash+`,{"trigger": {"type": "at", "at_ns": 3000000001}, "fault": {"kind": "crash.task", "task": "sum-1"}}]`),
			"scenario.faults[1].trigger.at_ns: 3.000000001s is after the fault phase (limits.fault_phase 3s): faults are injected only in the fault phase, so this crash.task would never fire"},
		{"trigger after the run", withField("faults", `[{"trigger": {"type": "at", "at_ns": 50000000000}, "fault": {"kind": "crash.coordinator"}}]`),
			"scenario.faults[0].trigger.at_ns: 50s is after the fault phase (limits.fault_phase 3s) and after the run's end (limits.max_virtual_time 13.5s): faults are injected only in the fault phase, so this crash.coordinator would never fire"},
		{"fault field the kind does not take", withField("faults", `[{"trigger": {"type": "at"}, "fault": {"kind": "crash.task", "task": "sum-1", "window_ns": 5}}]`), "scenario.faults[0].fault.window_ns: does not apply to crash.task"},
		{"fault on a missing task", withField("faults", `[{"trigger": {"type": "at"}, "fault": {"kind": "crash.task", "task": "sum-9"}}]`), `scenario.faults[0].fault.task: no task "sum-9"`},
		{"unknown fault field", withField("faults", `[{"trigger": {"type": "at"}, "fault": {"kind": "crash.task", "task": "sum-1", "when": 1}}]`), "scenario.faults[0].fault.when: unknown field"},
		{"trigger on sink.writes, traced per record", withFields("sink", `{"kind": "two-phase-commit", "trace_each_write": true}`,
			"faults", `[{"trigger": {"type": "nth", "nth": 3, "kind": "sink.writes"}, "fault": {"kind": "crash.coordinator"}}]`),
			"scenario.faults[0].trigger.kind: sink.writes events are not traced with sink.trace_each_write"},
		{"trigger on sink.write, traced in batches", withField("faults", `[{"trigger": {"type": "nth", "nth": 3, "kind": "sink.write"}, "fault": {"kind": "crash.coordinator"}}]`), "scenario.faults[0].trigger.kind: sink.write events are traced only with sink.trace_each_write"},
		{"trigger on a missing task", withField("faults", `[{"trigger": {"type": "nth", "nth": 1, "kind": "snapshot.ack", "task": "map-0"}, "fault": {"kind": "crash.coordinator"}}]`), `scenario.faults[0].trigger.task: no task "map-0"`},
		{"faults and swarm", strings.Replace(withField("swarm", `{}`), `"swarm"`, `"faults": [`+crash+`], "swarm"`, 1), "scenario.swarm: give either faults or swarm, not both"},
		{"unknown swarm kind", withField("swarm", `{"kinds": ["meteor"]}`), `scenario.swarm.kinds[0]: "meteor" is not a fault kind`},
		{"out-of-model swarm kind", withField("swarm", `{"kinds": ["data.drop"]}`), `scenario.swarm.kinds[0]: "data.drop" is out of model`},
		{"script outside chandy-lamport", withField("script", `[{"op": "advance", "by": "1ms"}]`), "scenario.script: not used except by mode chandy-lamport"},
		{"seed range backwards", withField("seeds", `"9-3"`), `scenario.seeds: bad seed range "9-3": the first seed is after the last`},
		{"limits too short", withField("limits", `{"fault_phase": "5s", "liveness_bound": "5s", "max_virtual_time": "6s"}`), "scenario.limits.max_virtual_time: 6s is shorter than the phases (11.75s)"},
		{"liveness bound shorter than the interval", withFields("checkpoint", `{"interval": "10s"}`,
			"workload", `{"kind": "keyed-sum", "records": 1000, "record_interval": "10ms"}`),
			"scenario.limits.liveness_bound: 5s is shorter than the wait for a checkpoint after heal (checkpoint.interval 10s"},
		{"check unknown", withField("check", `["exactly-once", "vibes"]`), `scenario.check[1]: "vibes" is not one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.input))
			if err == nil {
				t.Fatalf("Parse accepted %s", tc.input)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "scenarios: scenario") {
				t.Errorf("error %q does not start with the package and the root path", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans several lines", err)
			}
		})
	}
}

func TestParseExplicitAndScriptedTopologies(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		{"link to a missing node", `{"name": "x", "mode": "unaligned", "workload": {"kind": "pass-through"}, "sink": {"kind": "idempotent"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "explicit", "nodes": [{"name": "s", "kind": "source"}, {"name": "k", "kind": "sink"}], "links": [{"from": "s", "to": "q"}]}}`,
			`scenario.topology.links[0].to: "q" is not a node`},
		{"forward between unequal parallelism", `{"name": "x", "mode": "unaligned", "workload": {"kind": "pass-through"}, "sink": {"kind": "idempotent"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "explicit", "nodes": [{"name": "s", "kind": "source", "parallelism": 2}, {"name": "k", "kind": "sink"}], "links": [{"from": "s", "to": "k"}]}}`,
			`scenario.topology.links[0].partition: forward needs equal parallelism at both ends (2 and 1)`},
		{"send along no link", `{"name": "x", "mode": "chandy-lamport", "workload": {"kind": "tokens"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "cycle", "processes": 3}, "script": [{"op": "send", "from": "p-0", "to": "p-2", "tokens": 1}]}`,
			`scenario.script[0]: no link from "p-0" to "p-2"`},
		{"step field the op does not take", `{"name": "x", "mode": "chandy-lamport", "workload": {"kind": "tokens"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "cycle", "processes": 3}, "script": [{"op": "snapshot", "process": "p-0", "tokens": 4}]}`,
			`scenario.script[0].tokens: not used by snapshot`},
		{"chandy-lamport needs tokens", `{"name": "x", "mode": "chandy-lamport", "workload": {"kind": "keyed-sum"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "cycle"}}`,
			`scenario.workload.kind: the tokens workload runs in mode chandy-lamport, and only it`},
		{"channel-state bound where none is recorded", withField("checkpoint", `{"max_buffered_records": 4}`),
			"scenario.checkpoint.max_buffered_records: not used by mode aligned, which records no channel state"},
		{"pending-transaction bound of a sink without transactions", withField("sink", `{"kind": "idempotent", "max_pending_transactions": 2}`),
			"scenario.sink.max_pending_transactions: not used except by a two-phase-commit sink"},
		{"pending-transaction bound past the limit", withField("sink", `{"kind": "two-phase-commit", "max_pending_transactions": 1025}`),
			"scenario.sink.max_pending_transactions: "},
		{"inline state in chandy-lamport", `{"name": "x", "mode": "chandy-lamport", "workload": {"kind": "tokens"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "cycle"}, "checkpoint": {"inline_state_bytes": 100}}`,
			`scenario.checkpoint.inline_state_bytes: not used by mode chandy-lamport`},
		{"periodic switch in chandy-lamport", `{"name": "x", "mode": "chandy-lamport", "workload": {"kind": "tokens"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "cycle"}, "checkpoint": {"periodic": false}}`,
			`scenario.checkpoint.periodic: not used by mode chandy-lamport`},
		{"initiator that is no process", `{"name": "x", "mode": "chandy-lamport", "workload": {"kind": "tokens"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "cycle"}, "checkpoint": {"initiators": ["p-0", "a"]}}`,
			`scenario.checkpoint.initiators[1]: "a" is not a process`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestBuiltinsRoundTrip(t *testing.T) {
	for _, s := range Builtins() {
		back, err := Parse(Marshal(s))
		if err != nil {
			t.Errorf("%s: its own file does not parse: %v", s.Name, err)
			continue
		}
		if diff := cmp.Diff(s, back); diff != "" {
			t.Errorf("%s: round trip changed it (-want +got):\n%s", s.Name, diff)
		}
	}
}

func FuzzParseScenario(f *testing.F) {
	for _, s := range Builtins() {
		f.Add(Marshal(s))
	}
	f.Add([]byte(minimal))
	f.Add([]byte(tokensTriangle(`{"latency": {"kind": "uniform", "min": "1ms", "max": "5ms"}, "links": [{"from": "N1", "to": "N2", "latency": {"kind": "exponential", "mean": "1ms", "cap": "4ms"}}]}`)))
	f.Add([]byte(`{"name": "x", "topology": {"kind": "explicit", "nodes": [{"name": "a"}]}}`))
	f.Add([]byte(`{"faults": [{"trigger": {"type": "nth", "kind": "x"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if s != nil {
				t.Fatal("Parse returned a scenario with an error")
			}
			return
		}
		back, err := Parse(Marshal(s))
		if err != nil {
			t.Fatalf("accepted scenario does not parse back: %v\n%s", err, Marshal(s))
		}
		if diff := cmp.Diff(s, back); diff != "" {
			t.Fatalf("round trip changed the scenario (-want +got):\n%s", diff)
		}
	})
}
