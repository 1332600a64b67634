package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/trace"
)

// globalSnapshot is a completed checkpoint of a token job as its trace shows it.
type globalSnapshot struct {
	cp                  uint64
	triggered, complete int // indices of checkpoint.trigger and checkpoint.complete
	balances            map[string]int64
	inFlight            int64 // tokens recorded in flight, all channels
}

// globalSnapshots reads the completed checkpoints of a token job from its trace, in the
// order they completed, each from the last snapshot.taken of each process for it.
func globalSnapshots(t *testing.T, events []trace.Event) []globalSnapshot {
	t.Helper()
	taken := map[uint64]map[string]trace.Event{}
	triggered := map[uint64]int{}
	var out []globalSnapshot
	number := func(e trace.Event, key string) int64 {
		v, _ := e.Attr(key)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("seq %d: %s=%q: %v", e.Seq, key, v, err)
		}
		return n
	}
	for i, e := range events {
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			triggered[e.CP] = i
		case trace.KindSnapshotTaken:
			if taken[e.CP] == nil {
				taken[e.CP] = map[string]trace.Event{}
			}
			taken[e.CP][e.Task] = e
		case trace.KindCheckpointComplete:
			g := globalSnapshot{cp: e.CP, triggered: triggered[e.CP], complete: i, balances: map[string]int64{}}
			for task, snap := range taken[e.CP] {
				g.balances[task] = number(snap, trace.AttrTokens)
				for _, a := range snap.Attrs {
					if strings.HasPrefix(a.Key, trace.AttrChanTokensPrefix) {
						g.inFlight += number(snap, a.Key)
					}
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// runScenario runs s on seed and returns its result and trace.
func runScenario(t *testing.T, s *Scenario, seed uint64) (*Result, []trace.Event) {
	t.Helper()
	var buf bytes.Buffer
	_, res, err := Execute(NewSimulation(), s, seed, RunOptions{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	_, events, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return res, events
}

// referenceBalances is what a correct run of the token scenario s ends with.
func referenceBalances(t *testing.T, s *Scenario) (map[string]int64, int64) {
	t.Helper()
	cfg, err := engineConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ref.Balances, ref.TokenTotal
}

// TestClassicExercise runs the scripted catalogue exercise and checks, beside the checkers'
// verdict, what the script is there to show: the first two snapshots are in flight
// together and record tokens in flight, every global snapshot conserves the tokens, the
// crash rolls the job back to a completed snapshot, and the last snapshot shows the
// balances the script leads to.
func TestClassicExercise(t *testing.T) {
	s, err := Lookup("chandy-lamport-classic")
	if err != nil {
		t.Fatal(err)
	}
	final, total := referenceBalances(t, s)
	if want := map[string]int64{"p-0": 130, "p-1": 10, "p-2": 160}; fmt.Sprint(final) != fmt.Sprint(want) || total != 300 {
		t.Fatalf("the script leads to %v (%d tokens), its description says %v", final, total, want)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Fatalf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		snaps := globalSnapshots(t, events)
		if len(snaps) < 3 {
			t.Fatalf("seed %d: %d global snapshots, want the script's three and a last one", seed, len(snaps))
		}
		for _, g := range snaps {
			var held int64
			for _, b := range g.balances {
				held += b
			}
			if held+g.inFlight != total {
				t.Errorf("seed %d: checkpoint %d holds %d + %d in flight, want %d", seed, g.cp, held, g.inFlight, total)
			}
		}
		first, second := snaps[0], snaps[1]
		if second.triggered > first.complete {
			t.Errorf("seed %d: checkpoint %d started after %d completed; the script starts them together", seed, second.cp, first.cp)
		}
		if first.inFlight == 0 || second.inFlight == 0 {
			t.Errorf("seed %d: the first snapshots record %d and %d tokens in flight, want some in each", seed, first.inFlight, second.inFlight)
		}
		var failovers int
		for _, e := range events {
			if e.Kind == trace.KindJobFailover {
				failovers++
				if e.CP == 0 {
					t.Errorf("seed %d: the crash rolled the job back to its start, not to a snapshot", seed)
				}
			}
		}
		if failovers != 1 {
			t.Errorf("seed %d: %d failovers, want the crash's one", seed, failovers)
		}
		if last := snaps[len(snaps)-1]; fmt.Sprint(last.balances) != fmt.Sprint(final) || last.inFlight != 0 {
			t.Errorf("seed %d: the last snapshot shows %v and %d in flight, want %v", seed, last.balances, last.inFlight, final)
		}
	}
}

// TestScriptedSnapshotsAreJudged is the exercise's negative control on the checker's side:
// told that the job holds one token more than it does, the consistent-cut checker must
// reject every global snapshot of the run, the scripted ones included.
func TestScriptedSnapshotsAreJudged(t *testing.T) {
	s, err := Lookup("chandy-lamport-classic")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewSimulation().Plan(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRun(p, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.ref.TokenTotal++
	res, err := r.run()
	if err != nil {
		t.Fatal(err)
	}
	res.Judge(s.Expect)
	if res.Verdict != VerdictFail || !res.Unexpected {
		t.Fatalf("verdict %s (unexpected %v) with a wrong total", res.Verdict, res.Unexpected)
	}
	wrong := 0
	for _, v := range res.Violations {
		if v.Property == checker.PropConsistentCut && strings.Contains(v.Message, "expected 301") {
			wrong++
		}
	}
	if wrong != res.CheckpointsCompleted || wrong < 3 {
		t.Errorf("%d of %d completed snapshots judged wrong: %v", wrong, res.CheckpointsCompleted, res.Violations)
	}
}

// TestScriptFileRuns runs the scripted exercise of testdata, a file written by hand: it
// parses, and on every seed its global snapshots conserve the tokens and the job ends with
// the balances its sends lead to, whatever the crash rolled back.
func TestScriptFileRuns(t *testing.T) {
	data, err := os.ReadFile("testdata/chandy-lamport-script.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	final, total := referenceBalances(t, s)
	if total != 300 {
		t.Fatalf("the file's three processes hold %d tokens, want 300", total)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Fatalf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		snaps := globalSnapshots(t, events)
		if len(snaps) == 0 {
			t.Fatalf("seed %d: no global snapshot", seed)
		}
		if last := snaps[len(snaps)-1]; fmt.Sprint(last.balances) != fmt.Sprint(final) {
			t.Errorf("seed %d: the last snapshot shows %v, want %v", seed, last.balances, final)
		}
	}
}

// TestChandyLamportMeshSurvivesLostOrders runs the mesh on the seeds whose swarms partition
// the coordinator from a process and lose its orders. The processes used to number their
// snapshots themselves, fell out of step with the coordinator after a lost order, and the
// engine panicked ("p-2 initiated p-2#2 (checkpoint 8), the coordinator expected 14").
func TestChandyLamportMeshSurvivesLostOrders(t *testing.T) {
	s, err := Lookup("chandy-lamport-mesh")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2, 18, 41} {
		p, res, err := Execute(NewSimulation(), s, seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Faults.String(), "net.partition from=coordinator") {
			t.Errorf("seed %d no longer partitions the coordinator from a process: %s", seed, p.Faults)
		}
		if res.Unexpected {
			t.Errorf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
	}
}

func TestScriptValidation(t *testing.T) {
	head := `{"name": "x", "mode": "chandy-lamport", "topology": {"kind": "cycle", "processes": 3}, "expect": {"verdict": "pass"}, `
	for _, tc := range []struct {
		name, input, want string
	}{
		{"restart without a crash", `"workload": {"kind": "tokens"}, "script": [{"op": "restart", "process": "p-1"}]}`,
			`scenario.script[0]: p-1 is not down: restart follows a crash of the same process`},
		{"crash twice", `"workload": {"kind": "tokens"}, "script": [{"op": "crash", "process": "p-1"}, {"op": "advance", "by": "1ms"}, {"op": "crash", "process": "p-1"}]}`,
			`scenario.script[2]: p-1 is down already (crashed at step 0)`},
		{"longer than the fault phase", `"workload": {"kind": "tokens"}, "limits": {"fault_phase": "1s"}, "script": [{"op": "advance", "by": "2s"}]}`,
			`scenario.script: takes 2s, longer than the fault phase (1s)`},
		{"more tokens than there are", `"workload": {"kind": "tokens", "initial_tokens": 10}, "script": [
				{"op": "send", "from": "p-0", "to": "p-1", "tokens": 5}, {"op": "send", "from": "p-1", "to": "p-2", "tokens": 16}]}`,
			`scenario.script[1]: p-1 can never send 16 tokens: it holds 15 once no other send can be made`},
		{"random transfers too", `"workload": {"kind": "tokens", "transfers": 5}, "script": [{"op": "snapshot", "process": "p-0"}]}`,
			`scenario.workload.transfers: not used with a script`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(head + tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
	// A send that must wait for tokens still to come is fine.
	if _, err := Parse([]byte(head + `"workload": {"kind": "tokens", "initial_tokens": 10}, "script": [
		{"op": "send", "from": "p-1", "to": "p-2", "tokens": 15}, {"op": "send", "from": "p-0", "to": "p-1", "tokens": 5}]}`)); err != nil {
		t.Errorf("a send that waits: %v", err)
	}
}
