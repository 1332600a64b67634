package simtarget_test

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// ack is the payload of the example: a task's acknowledgement of checkpoint cp.
type ack struct{ cp int }

// exampleEngine stands for the glue's engine half; a real one crashes tasks and the
// coordinator and fails the external store's transactions.
type exampleEngine struct{}

func (exampleEngine) CrashTask(task string)                         { fmt.Println("engine: crash", task) }
func (exampleEngine) CrashCoordinator()                             { fmt.Println("engine: crash coordinator") }
func (exampleEngine) TriggerSavepoint()                             {}
func (exampleEngine) StopWithSavepoint(bool)                        {}
func (exampleEngine) TriggerCheckpoint()                            {}
func (exampleEngine) ResubmitJob(string)                            {}
func (exampleEngine) RescaleJob(string, int, string)                {}
func (exampleEngine) TimeOutTransactions(faults.EffectID, int64)    {}
func (exampleEngine) FailCommits(faults.EffectID, float64)          {}
func (exampleEngine) FailSinkWrites(faults.EffectID, float64, bool) {}
func (exampleEngine) End(faults.EffectID)                           {}
func (exampleEngine) Heal()                                         { fmt.Println("engine: heal") }

// A glue maps the fault model's names onto its kernel, composes the World with its engine
// half into a faults.Target, and lets the injector drive both. Here a task acknowledges a
// checkpoint every 10ms while the coordinator is cut off from it between 15ms and 35ms.
func Example() {
	k := sim.New(sim.Config{Seed: 1})
	worker := k.AddHost("host-1", func(*sim.Host) {})
	coordinator := k.AddHost("host-0", func(h *sim.Host) {
		h.SetReceiver(func(_ *sim.Link, msg any) {
			fmt.Printf("%v: coordinator got ack %d\n", k.Now(), msg.(*ack).cp)
		})
	})
	acks := k.Connect("sum-1->coordinator", worker, coordinator, sim.LinkConfig{Latency: time.Millisecond})
	worker.Start()
	coordinator.Start()

	world, err := simtarget.NewWorld(k, simtarget.Config{
		Routes: []simtarget.Route{{Link: faults.Link{From: "sum-1", To: faults.Coordinator}, Sim: acks}},
		Classify: func(msg any) simtarget.Class {
			if _, ok := msg.(*ack); ok {
				return simtarget.ClassAck
			}
			return simtarget.ClassOther
		},
	})
	if err != nil {
		panic(err)
	}
	injector, err := faults.NewInjector(faults.Config{
		Schedule: faults.Schedule{Entries: []faults.Entry{{
			Trigger: faults.At(faults.Duration(15 * time.Millisecond)),
			Fault:   faults.Fault{Kind: faults.NetPartition, From: "sum-1", To: faults.Coordinator, Window: faults.Duration(20 * time.Millisecond)},
		}}},
		Phases:    faults.Phases{Fault: faults.Duration(50 * time.Millisecond), Liveness: faults.Duration(10 * time.Millisecond)},
		Target:    simtarget.Target{World: world, Engine: exampleEngine{}},
		Scheduler: simtarget.Scheduler{Kernel: k},
		Recorder:  trace.NewRecorder(nil, trace.Header{}),
	})
	if err != nil {
		panic(err)
	}
	for cp := 1; cp <= 5; cp++ {
		k.At(sim.TimeAt(time.Duration(cp)*10*time.Millisecond), func() { acks.Send(&ack{cp: cp}) })
	}
	injector.Start()
	k.Run()
	// Output:
	// 11000000ns: coordinator got ack 1
	// 41000000ns: coordinator got ack 4
	// engine: heal
	// 51000000ns: coordinator got ack 5
}
