package simenvtest

import (
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// FaultStorageUntilCoordinatorCrash arms job, before it starts, so that every storage
// operation of kind op under a key with prefix meets fault kind from the first
// checkpoint.complete on, for window; then the coordinator crashes and a new incarnation
// starts 10 ms later. It returns the count of operations faulted so far, to read after the
// run: a test whose fault met nothing proves nothing.
func FaultStorageUntilCoordinatorCrash(job *simenv.Job, prefix string, op sim.StoreOpKind, kind sim.StoreFaultKind, window time.Duration) *int {
	failing, faulted := false, new(int)
	job.Env.Storage().SetFaultHook(func(o sim.StoreOp) sim.StoreFault {
		if failing && o.Kind == op && strings.HasPrefix(o.Key, prefix) {
			*faulted++
			return sim.StoreFault{Kind: kind}
		}
		return sim.StoreFault{}
	})
	armed := false
	job.Recorder.Watch(func(e *trace.Event) {
		if armed || e.Kind != trace.KindCheckpointComplete {
			return
		}
		armed, failing = true, true
		job.Kernel.After(window, func() {
			failing = false
			if job.Runtime.CrashCoordinator() == nil {
				job.Kernel.After(10*time.Millisecond, func() { _ = job.Runtime.StartCoordinator() })
			}
		})
	})
	return faulted
}
