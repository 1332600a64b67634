package engine

import (
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// The promises of the protocol's contract that the engine checks where it relies on them,
// as a contract.broken event names them (attr what).
const (
	contractAdmit           = "admit"            // Admit answers process, block or record
	contractReceive         = "receive"          // Receive takes every in-band event in channel order
	contractStep            = "step"             // Step takes every control message, stale ones included
	contractFinish          = "finish"           // Finish takes the end of a task's input once
	contractSnapshotRequest = "snapshot-request" // one snapshot request per checkpoint and task
	contractChannelState    = "channel-state"    // channel state only for a snapshot that records it
	contractSeal            = "seal"             // a seal only for a snapshot that records channel state
	contractSnapshotOutcome = "snapshot-outcome" // SnapshotCompleted and SnapshotFailed take the outcome
	contractRestore         = "restore"          // a restored checkpoint holds a snapshot of every task, which the protocol takes
	contractStart           = "start"            // a valid configuration and the durable state it wrote start a coordinator
	// a completed checkpoint holds only snapshots taken for a checkpoint
	contractCompletedSnapshot = "completed-snapshot"
	// contractNoPanic (guard.go): the protocol never panics on input within its contract
)

// breakContract is what the engine does when the protocol hands it something the contract
// rules out. Going on would build on a state neither side can trust, and a panic would
// throw the trace away with it; instead the engine traces what broke (contract.broken, a
// verdict the checkers give) and halts the job: every task and the coordinator die, nothing
// restarts, and nothing more is traced, so the trace ends where the contract broke. The
// caller returns at once. A runtime failure inside the protocol (a nil dereference, an index
// out of range) breaks its promise never to panic and comes here through guard; one in the
// engine's own task code fails the task instead (failOnError).
func (rt *Runtime) breakContract(who string, cp protocol.CheckpointID, what, detail string) {
	if rt.halted {
		return
	}
	rt.emit(trace.ContractBroken(who, uint64(cp), what, detail))
	rt.halt()
}

// halt stops the job for good: every task and the coordinator die, nothing restarts, and
// nothing more is traced.
func (rt *Runtime) halt() {
	rt.halted = true
	for _, t := range rt.tasks {
		if t != nil && t.alive() {
			t.phase = phaseDead
			t.proc.Kill()
		}
	}
	if c := rt.currentCoordinator(); c != nil && c.incarnation().running() {
		c.incarnation().proc.Kill()
		c.incarnation().dead = true
	}
}

// Halted reports whether the job halted on a broken contract (breakContract).
func (rt *Runtime) Halted() bool { return rt.halted }

// breakContract is Runtime.breakContract for task t.
func (t *task) breakContract(cp protocol.CheckpointID, what, detail string) {
	t.rt.breakContract(t.plan.id, cp, what, detail)
}
