package scenarios

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/trace"
)

// ownBalancesFile is testdata/chandy-lamport-own-balances.json: processes N1, N2 and N10,
// starting with 1, 0 and (the workload's initial_tokens) 2 tokens.
func ownBalancesFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/chandy-lamport-own-balances.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// edit returns file with old replaced by new, which must be there.
func edit(t *testing.T, file, old, new string) string {
	t.Helper()
	if !strings.Contains(file, old) {
		t.Fatalf("the file has no %q", old)
	}
	return strings.Replace(file, old, new, 1)
}

// TestProcessesStartWithBalancesOfTheirOwn: a process node's tokens is its starting balance;
// a node without tokens starts with the workload's initial_tokens. The total every global
// snapshot must conserve is their sum, and a zero given survives the round trip.
func TestProcessesStartWithBalancesOfTheirOwn(t *testing.T) {
	s, err := Parse([]byte(ownBalancesFile(t)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.InitialBalances(), map[string]int64{"N1": 1, "N2": 0, "N10": 2}; !maps.Equal(got, want) {
		t.Errorf("initial balances %v, want %v", got, want)
	}
	if got := s.TokenTotal(); got != 3 {
		t.Errorf("token total %d, want 3", got)
	}
	data := Marshal(s)
	if !strings.Contains(string(data), `"tokens": 0`) || !strings.Contains(string(data), `"tokens": 1`) {
		t.Errorf("the marshalled scenario lost a node's tokens:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("round trip changed the scenario (-want +got):\n%s", diff)
	}
	clone := s.Clone()
	*clone.Topology.Nodes[0].Tokens = 7
	if *s.Topology.Nodes[0].Tokens != 1 {
		t.Error("changing a clone's node tokens changed the original")
	}

	cfg, err := engineConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference(s, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !ref.TokenWorkload || ref.TokenTotal != 3 {
		t.Errorf("reference: token workload %v, total %d; want 3 tokens", ref.TokenWorkload, ref.TokenTotal)
	}
	final, total := referenceBalances(t, s)
	if want := map[string]int64{"N1": 3, "N2": 0, "N10": 0}; !maps.Equal(final, want) || total != 3 {
		t.Errorf("the script leads to %v (%d tokens), want %v", final, total, want)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Fatalf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		snaps := globalSnapshots(t, events)
		if len(snaps) < 2 {
			t.Fatalf("seed %d: %d global snapshots, want the script's two at least", seed, len(snaps))
		}
		for _, g := range snaps {
			var held int64
			for _, b := range g.balances {
				held += b
			}
			if held+g.inFlight != 3 {
				t.Errorf("seed %d: checkpoint %d holds %v and %d in flight, not the 3 tokens", seed, g.cp, g.balances, g.inFlight)
			}
		}
		// The first snapshot starts as N1's only token leaves for N2, before N10 sends
		// anything: N10 still holds its 2, and the token is at N2 or on its way there.
		if first := snaps[0]; first.balances["N10"] != 2 || first.balances["N1"] != 0 || first.balances["N2"]+first.inFlight != 1 {
			t.Errorf("seed %d: the first global snapshot holds %v and %d in flight", seed, first.balances, first.inFlight)
		}
	}
}

// TestProcessesKeepTheirNames: the processes of an explicit topology are called by their
// node names, upper case and all, in the script, the faults and the trace; nothing is
// renamed p-0, p-1, .... Process i still runs on host tm-i, so N10's crash is tm-2's.
func TestProcessesKeepTheirNames(t *testing.T) {
	file := edit(t, ownBalancesFile(t), `"expect"`,
		`"faults": [{"trigger": {"type": "nth", "nth": 3, "kind": "snapshot.taken", "task": "N10"}, "fault": {"kind": "crash.task", "task": "N2"}}],
		"expect"`)
	s, err := Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	g := s.Graph()
	if got, want := g.Tasks(), []string{"N1", "N2", "N10"}; !slices.Equal(got, want) {
		t.Errorf("tasks %v, want %v", got, want)
	}
	for task, host := range map[string]string{"N1": "tm-0", "N2": "tm-1", "N10": "tm-2"} {
		if got := g.HostOf(task); got != host {
			t.Errorf("%s runs on %q, want %s", task, got, host)
		}
	}
	cfg, err := engineConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Graph.Tasks(), []string{"N1", "N2", "N10"}; !slices.Equal(got, want) {
		t.Errorf("the engine's tasks are %v, want %v", got, want)
	}
	names := []string{"N1", "N2", "N10", "coordinator"}
	for seed := uint64(1); seed <= 3; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Fatalf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		crashed := map[string]bool{}
		for _, e := range events {
			if e.Task != "" && !slices.Contains(names, e.Task) {
				t.Fatalf("seed %d: seq %d (%s) names task %q, not one of %v", seed, e.Seq, e.Kind, e.Task, names)
			}
			for _, a := range e.Attrs {
				if strings.Contains(a.Key, "p-") {
					t.Fatalf("seed %d: seq %d (%s) has attribute %s of a renamed process", seed, e.Seq, e.Kind, a.Key)
				}
			}
			if e.Kind == trace.KindTaskCrash {
				crashed[e.Task] = true
			}
		}
		// The script's crash of N10 takes its host down; the fault crashes N2 alone.
		if !crashed["N10"] || !crashed["N2"] {
			t.Errorf("seed %d: crashed %v, want N10 (the script's) and N2 (the fault's)", seed, crashed)
		}
	}
}

// TestProcessNodeRules: what a process node may be called and hold, and what a file
// written when processes were renamed p-0, p-1, ... is told.
func TestProcessNodeRules(t *testing.T) {
	base := ownBalancesFile(t)
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"negative tokens", `"tokens": 0}`, `"tokens": -1}`, `scenario.topology.nodes[1].tokens: must be >= 0, not -1`},
		{"too many tokens", `"tokens": 0}`, `"tokens": 2000000000000000}`, `scenario.topology.nodes[1].tokens: must be at most 1000000000000000, not 2000000000000000`},
		{"tokens of a wrong type", `"tokens": 0}`, `"tokens": "none"}`, `scenario.topology.nodes[1].tokens`},
		{"more than a process ever holds", `{"op": "send", "from": "N2", "to": "N10", "tokens": 1}`, `{"op": "send", "from": "N2", "to": "N10", "tokens": 2}`,
			`scenario.script[3]: N2 can never send 2 tokens: it holds 1 once no other send can be made`},
		{"a name starting with a digit", `"name": "N1", "kind"`, `"name": "1N", "kind"`, `scenario.topology.nodes[0].name: "1N" must be 1 to 32 of letters (either case), digits, '-' and '_', starting with a letter`},
		{"a name with a space", `"name": "N1", "kind"`, `"name": "N 1", "kind"`, `"N 1" must be 1 to 32 of letters`},
		{"a name too long", `"name": "N1", "kind"`, `"name": "` + strings.Repeat("N", 33) + `", "kind"`, `must be 1 to 32 of letters`},
		{"a reader's name", `"name": "N1", "kind"`, `"name": "reader-0", "kind"`,
			`scenario.topology.nodes[0].name: "reader-0" is the name of one of the engine's own processes (coordinator, extstore, reader-<i>), which share one namespace with the processes`},
		{"the coordinator's name", `"name": "N1", "kind"`, `"name": "coordinator", "kind"`, `"coordinator" is the name of one of the engine's own processes`},
		{"two nodes of one name", `"name": "N10", "kind"`, `"name": "N2", "kind"`, `scenario.topology.nodes[2].name: "N2" names two nodes`},
		{"an old name in the script", `{"op": "send", "from": "N1", "to": "N2", "tokens": 1}`, `{"op": "send", "from": "p-0", "to": "N2", "tokens": 1}`,
			`scenario.script[0].from: "p-0" is not a process: an explicit topology's processes go by their node names now, not p-0, p-1, ... (p-0 was node 0, "N1")`},
		{"an old name among the initiators", `"checkpoint": {`, `"checkpoint": {"initiators": ["p-2"], `,
			`scenario.checkpoint.initiators[0]: "p-2" is not a process: an explicit topology's processes go by their node names now, not p-0, p-1, ... (p-2 was node 2, "N10")`},
		{"an old name in a fault", `"expect"`, `"faults": [{"trigger": {"type": "at", "at_ns": 1000}, "fault": {"kind": "crash.task", "task": "p-2"}}], "expect"`,
			`scenario.faults[0].fault.task: no task "p-2" in the system (an explicit topology's processes go by their node names now, not p-0, p-1, ...: p-2 was node 2, "N10")`},
		{"a name of no process", `{"op": "snapshot", "process": "N2"}`, `{"op": "snapshot", "process": "n2"}`, `scenario.script[1].process: "n2" is not a process (processes are named like N1, N2, N10`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(edit(t, base, tc.old, tc.new)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}

	// Case matters, and names may use '-' and '_': n2 and N2 are two processes.
	file := edit(t, base, `"name": "N10", "kind": "process"}`, `"name": "n2", "kind": "process"}, {"name": "a-b_C", "kind": "process", "tokens": 4}`)
	file = strings.ReplaceAll(file, `"N10"`, `"n2"`)
	file = edit(t, file, `{"from": "N2", "to": "N1"}`, `{"from": "N2", "to": "N1"}, {"from": "n2", "to": "a-b_C"}, {"from": "a-b_C", "to": "N1"}`)
	s, err := Parse([]byte(file))
	if err != nil {
		t.Fatalf("names of either case, with '-' and '_': %v", err)
	}
	if got, want := s.Graph().Tasks(), []string{"N1", "N2", "n2", "a-b_C"}; !slices.Equal(got, want) {
		t.Errorf("tasks %v, want %v", got, want)
	}
	if got := s.TokenTotal(); got != 1+0+2+4 {
		t.Errorf("token total %d, want 7", got)
	}
	if res, _ := runScenario(t, s, 1); res.Verdict != VerdictPass {
		t.Errorf("%s: %s %v", res.Verdict, res.Why, res.Violations)
	}

	// A dataflow node is an operator whose tasks append -<i>: its rule is unchanged, and it
	// has no tokens.
	for _, tc := range []struct{ node, want string }{
		{`{"name": "Src", "kind": "source"}`, `scenario.topology.nodes[0].name: "Src" must be 1 to 32 of a-z, 0-9 and '_', starting with a letter`},
		{`{"name": "s", "kind": "source", "tokens": 3}`, `scenario.topology.nodes[0].tokens: not used except by the process nodes of mode chandy-lamport`},
	} {
		dataflow := `{"name": "x", "mode": "unaligned", "workload": {"kind": "pass-through"}, "sink": {"kind": "idempotent"}, "expect": {"verdict": "pass"},
			"topology": {"kind": "explicit", "nodes": [` + tc.node + `, {"name": "k", "kind": "sink"}], "links": [{"from": "s", "to": "k"}]}}`
		if _, err := Parse([]byte(dataflow)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v\nwant it to contain %q", err, tc.want)
		}
	}
}

// TestTokenJobsRunNoReader: a token job has no sink, so nothing polls the external store and
// its trace has no sink.read (it had one every 100ms); a job with a sink still has its
// reader. A token run asked to judge sink-visibility, which needs reads, says it could not
// decide, rather than pass or fail.
func TestTokenJobsRunNoReader(t *testing.T) {
	reads := func(events []trace.Event) int {
		n := 0
		for _, e := range events {
			if e.Kind == trace.KindSinkRead {
				n++
			}
		}
		return n
	}
	s, err := Lookup("chandy-lamport-classic")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := engineConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range engine.ProcessNames(&cfg) {
		if strings.HasPrefix(p, engine.ReaderPrefix) {
			t.Errorf("the token job runs reader %s", p)
		}
	}
	res, events := runScenario(t, s, 1)
	if res.Verdict != VerdictPass {
		t.Fatalf("%s: %s %v", res.Verdict, res.Why, res.Violations)
	}
	if n := reads(events); n != 0 {
		t.Errorf("the token job's trace has %d sink.read events", n)
	}

	s.Check = []checker.Property{checker.PropConsistentCut, checker.PropSinkVisibility}
	res, _ = runScenario(t, s, 1)
	if res.Verdict != VerdictUnknown || len(res.Violations) != 0 || !strings.Contains(strings.Join(res.Undecided, "; "), "sink-visibility (no sink.read") {
		t.Errorf("sink-visibility of a token job: %s, undecided %v, violations %v; want unknown for want of a sink.read", res.Verdict, res.Undecided, res.Violations)
	}

	s, err = Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	if _, events := runScenario(t, s, 1); reads(events) == 0 {
		t.Error("a job with a sink has no sink.read")
	}
}
