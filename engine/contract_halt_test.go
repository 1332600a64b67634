package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// recordingEnv is an Env that keeps what is emitted and spawns nothing; the rest is unused.
type recordingEnv struct {
	Env
	events  []trace.Event
	spawned int
}

func (e *recordingEnv) Emit(ev trace.Event) { e.events = append(e.events, ev) }

func (e *recordingEnv) Spawn(string, Process) (Proc, error) {
	e.spawned++
	return nil, ErrHostDown
}

// killableProc is a Proc that only lives and dies.
type killableProc struct {
	Proc
	dead bool
}

func (p *killableProc) Alive() bool { return !p.dead }
func (p *killableProc) Kill()       { p.dead = true }

// TestBreakContractTracesAndHalts: a broken contract is traced once, as the trace's last
// event; every task dies; nothing is traced or started afterwards. The contract rule then
// judges the trace, which a panic would have thrown away.
func TestBreakContractTracesAndHalts(t *testing.T) {
	env := &recordingEnv{}
	rt := &Runtime{env: env}
	procs := []*killableProc{{}, {}}
	for i, p := range procs {
		rt.tasks = append(rt.tasks, &task{rt: rt, plan: &taskPlan{id: TaskID("sum", i)}, proc: p, phase: phaseRunning})
	}
	rt.emit(trace.TaskFinish("source-0"))
	rt.tasks[1].breakContract(3, contractSnapshotRequest, "a second snapshot request for the checkpoint")
	rt.tasks[0].breakContract(4, contractSeal, "") // the job halted already: not traced
	rt.emit(trace.TaskFinish("sum-0"))
	if len(env.events) != 2 {
		t.Fatalf("traced %v, want the finish and one contract.broken", env.events)
	}
	want := trace.ContractBroken("sum-1", 3, contractSnapshotRequest, "a second snapshot request for the checkpoint")
	if got := env.events[1]; got.Kind != want.Kind || got.Task != want.Task || got.CP != want.CP || len(got.Attrs) != 2 {
		t.Errorf("traced %+v, want %+v", got, want)
	}
	for i, p := range procs {
		if !p.dead || rt.tasks[i].phase != phaseDead {
			t.Errorf("task %d still runs after the halt", i)
		}
	}
	if !rt.Halted() {
		t.Error("the runtime does not say it halted")
	}
	if err := rt.StartCoordinator(); err != nil || env.spawned != 0 {
		t.Errorf("a halted job started a coordinator: %v, %d spawned", err, env.spawned)
	}
	if err := rt.StartStore(); err != nil || env.spawned != 0 {
		t.Errorf("a halted job started the store: %v, %d spawned", err, env.spawned)
	}
}

// startEnv is a recordingEnv with a clock and random streams, enough to build a Runtime.
type startEnv struct{ recordingEnv }

func (e *startEnv) Now() int64                  { return 0 }
func (e *startEnv) Rand(name string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// TestRefusedStartBreaksTheContract: the protocol refuses a coordinator over a durable state
// the engine wrote (here a stored checkpoint without the job's tasks). That breaks the
// contract, start, and halts the job rather than panic.
func TestRefusedStartBreaksTheContract(t *testing.T) {
	env := &startEnv{}
	rt, err := New(env, DefaultConfig(KeyedSumGraph(2, 100, 0, TwoPhaseCommit)))
	if err != nil {
		t.Fatal(err)
	}
	c := &coordinator{coordinatorIncarnation: coordinatorIncarnation{rt: rt}}
	stored := []protocol.CompletedCheckpoint{{ID: 1, Kind: protocol.KindCheckpoint, Tasks: []protocol.TaskState{{Task: "source-0"}}}}
	if c.build(protocol.Durable{Completed: stored, HighestID: 1}) {
		t.Fatal("built a coordinator over a checkpoint that lacks the job's tasks")
	}
	if len(env.events) != 1 || env.events[0].Kind != trace.KindContractBroken || !rt.Halted() {
		t.Fatalf("traced %v, halted %v; want one contract.broken and a halt", env.events, rt.Halted())
	}
	if what, _ := env.events[0].Attr("what"); what != contractStart {
		t.Errorf("what = %q, want %q", what, contractStart)
	}
}
