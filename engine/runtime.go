package engine

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/engine/extstore"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// Runtime is one job running on an Env: the coordinator, the tasks of the current attempt,
// the external store and its readers. It is also the handle fault injection and tests use
// (CrashTask, CrashCoordinator, Store, ...).
//
// The Runtime object itself stands for the cluster around the processes (the resource
// manager that deploys tasks and detects failures); it holds no state a process would lose
// in a crash: the coordinator rebuilds its own from storage, and tasks from checkpoints.
type Runtime struct {
	env   Env
	cfg   Config
	plan  *jobPlan
	store *extstore.Store

	// kind is the job's JobKind, chosen in New; nil for a job of the barrier engine.
	kind              JobKind
	coord             *coordinator     // the protocol coordinator (barrier jobs)
	kindCoord         *kindCoordinator // the kind's coordinator (a JobKind's jobs)
	coordinatorStarts int
	tasks             []*task // the current incarnation of each task, in plan order
	attempt           int     // job attempts deployed so far
	nonce             uint64
	finished          bool
	finishTraced      bool // job.finish is in the trace (noteFinished)
	// stoppedBy is the stop-with-savepoint that completed, 0 if none: the job ends with it
	// unless a failover restores it (then it runs on to the end of its input).
	stoppedBy protocol.CheckpointID
	started   bool
	// halted: the job stopped on a broken contract (breakContract); nothing runs or is
	// traced any more.
	halted            bool
	sourceRecords     int64 // records read by sources, replays included
	snapshotBytes     int64 // written by snapshots (SnapshotBytes)
	resubmit          resubmission
	extraRestartDelay time.Duration
	// Messages every buffer and event needs come from blocks. They belong to no process:
	// a message, once sent, is the network's.
	bufferMsgs block[bufferMsg]
	// buffers holds the record arrays of network buffers for reuse (bufferPool).
	buffers   bufferPool
	eventMsgs block[eventMsg]
	// Per checkpoint every task sends the coordinator an acknowledgement, and every sink
	// and the store exchange a few requests and replies (writes every buffer): these come
	// from blocks too.
	controls     block[taskControl]
	storeReplies block[storeReply]
	storeWrites  block[storeRequest]
	writeAttrs   block[[2]trace.Attr] // of sink.writes events, one per buffer a sink writes
	// snapshotScratch is where finalise encodes snapshots, reused from one to the next
	// (it keeps the size of the largest).
	snapshotScratch stateWriter
	// credits is the one credit message every receiver sends (returnCredit): messages are
	// never changed once sent, so they can share it.
	credits     *creditMsg
	creditBatch int // consumed buffers per credit message (creditBatch)
}

// restartDelay is the pause before a (re)deployment.
func (rt *Runtime) restartDelay() time.Duration { return rt.cfg.RestartDelay + rt.extraRestartDelay }

// New checks cfg and prepares a job on env. Nothing runs until Start.
func New(env Env, cfg Config) (*Runtime, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Checkpoint.Random == nil {
		cfg.Checkpoint.Random = env.Rand("coordinator")
	}
	rt := &Runtime{env: env, cfg: cfg, plan: newJobPlan(&cfg.Graph, cfg.Checkpoint.Mode == protocol.ModeUnaligned || cfg.Checkpoint.Mode == protocol.ModeAlignedWithTimeout)}
	rt.kind = jobKindOf(&rt.cfg.Graph)
	rt.creditBatch = creditBatch(cfg.Network.Credits)
	rt.buffers.size = cfg.Network.BufferRecords
	rt.credits = &creditMsg{credits: rt.creditBatch}
	rt.store = extstore.New(int64(cfg.Store.TxnTimeout))
	rt.store.SetOrigins(rt.plan.catalog.origins)
	rt.tasks = make([]*task, len(rt.plan.tasks))
	return rt, nil
}

// Start spawns the external store, its readers and the coordinator, which deploys the
// tasks. It fails if a host these need is down.
func (rt *Runtime) Start() error {
	if rt.started {
		return fmt.Errorf("engine: job already started")
	}
	rt.started = true
	if err := rt.StartStore(); err != nil {
		return err
	}
	for i := 0; i < rt.cfg.readers(); i++ {
		if err := rt.StartReader(i); err != nil {
			return err
		}
	}
	return rt.StartCoordinator()
}

// StartStore (re)starts the external store's process; its data survives (it is an
// external system with storage of its own).
func (rt *Runtime) StartStore() error {
	if rt.halted {
		return nil // a halted job restarts nothing
	}
	p := &storeProcess{rt: rt, store: rt.store}
	proc, err := rt.spawn(storeName, p)
	if err != nil {
		return err
	}
	p.proc = proc
	p.resume()
	return nil
}

// StartReader (re)starts reader client i.
func (rt *Runtime) StartReader(i int) error {
	if rt.halted {
		return nil
	}
	p := &readerProcess{rt: rt, name: ReaderName(i)}
	proc, err := rt.spawn(p.name, p)
	if err != nil {
		return err
	}
	p.proc = proc
	// Readers are spread over the interval so their reads overlap commits differently.
	n := time.Duration(max(rt.cfg.readers(), 1))
	p.run(rt.cfg.Store.ReadInterval * time.Duration(i+1) / n)
	return nil
}

// StartCoordinator starts a coordinator incarnation: the first one starts the job; a later
// one (after CrashCoordinator, or after its host restarted) recovers from storage and
// restarts the job from the latest completed checkpoint. It kills a running incarnation.
// A job that finished (Finished, job.finish traced) is over and starts nothing again, as
// Flink's job result store keeps a finished job from running again after its JobManager
// failed over (FLINK-11813).
func (rt *Runtime) StartCoordinator() error {
	if rt.halted || rt.finishTraced {
		return nil
	}
	var c coordinatorProcess
	if rt.kind != nil {
		kc := &kindCoordinator{coordinatorIncarnation: coordinatorIncarnation{rt: rt}}
		kc.logic = rt.kind.NewCoordinator(&CoordinatorHost{c: &kc.coordinatorIncarnation})
		c = kc
	} else {
		c = &coordinator{coordinatorIncarnation: coordinatorIncarnation{rt: rt}}
	}
	proc, err := rt.spawn(coordinatorName, c)
	if err != nil {
		return err
	}
	if prev := rt.currentCoordinator(); prev != nil {
		prev.incarnation().dead = true
	}
	c.incarnation().proc = proc
	switch c := c.(type) {
	case *kindCoordinator:
		rt.kindCoord = c
	case *coordinator:
		rt.coord = c
	}
	rt.coordinatorStarts++
	defer rt.guard(coordinatorName) // begin may build the protocol coordinator at once
	c.begin(rt.coordinatorStarts == 1)
	return nil
}

// currentCoordinator returns the latest coordinator incarnation, alive or not; nil before
// the first.
func (rt *Runtime) currentCoordinator() coordinatorProcess {
	switch {
	case rt.kindCoord != nil:
		return rt.kindCoord
	case rt.coord != nil:
		return rt.coord
	}
	return nil
}

// deployTasks spawns every task of a new attempt, restoring from cp (nil: fresh). If a host
// is down it cancels what it spawned and reports false; the coordinator retries.
func (rt *Runtime) deployTasks(cp *protocol.CompletedCheckpoint) bool {
	spawned := make([]*task, 0, len(rt.plan.tasks))
	for i, tp := range rt.plan.tasks {
		t := newTask(rt, tp, rt.attempt)
		proc, err := rt.spawn(tp.id, t)
		if err != nil {
			for _, s := range spawned {
				s.cancel()
			}
			return false
		}
		t.proc = proc
		rt.tasks[i] = t
		spawned = append(spawned, t)
	}
	for _, t := range spawned {
		if !rt.halted {
			rt.startTask(t, cp)
		}
	}
	return true
}

// startTask starts t as its own entry into the engine (guard): a failure while it restores
// is the task's, though the coordinator's deployment called it.
func (rt *Runtime) startTask(t *task, cp *protocol.CompletedCheckpoint) {
	defer rt.guard(t.plan.id)
	t.start(cp)
}

// cancelTasks ends every task of the current attempt (a failover).
func (rt *Runtime) cancelTasks() {
	// A job restarted after its stop-with-savepoint completed runs on from it.
	rt.stoppedBy = 0
	for _, t := range rt.tasks {
		if t != nil {
			t.cancel()
		}
	}
}

// taskRunning tells the coordinator that t has restored and runs, as a task's state update
// reaches Flink's scheduler: the coordinator ends a failover only when every task of the
// new attempt has, so that it triggers no checkpoint of tasks that are still restoring.
func (rt *Runtime) taskRunning(t *task) {
	attempt := t.attempt
	c := rt.currentCoordinator()
	if c == nil || !c.incarnation().running() {
		return
	}
	c.incarnation().proc.After(0, func() { c.taskRunning(attempt) })
}

// taskFailed reports a dead task to the coordinator after the failure-detection delay.
func (rt *Runtime) taskFailed(t *task, reason string) {
	attempt := t.attempt
	c := rt.currentCoordinator()
	if c == nil || !c.incarnation().running() {
		return // the next coordinator incarnation restarts the job anyway
	}
	c.incarnation().proc.After(rt.cfg.FailureDetection, func() { c.taskFailed(attempt) })
}

// jobDone tells the coordinator that every task of the finished job has exited, so that it
// stops ticking.
func (rt *Runtime) jobDone() {
	if c := rt.currentCoordinator(); c != nil {
		c.jobDone()
	}
}

func (rt *Runtime) nextNonce() uint64 {
	rt.nonce++
	return rt.nonce
}

// emit traces e, unless the job halted on a broken contract: the trace ends there.
func (rt *Runtime) emit(e trace.Event) {
	if !rt.halted {
		rt.env.Emit(e)
	}
}
