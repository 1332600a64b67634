package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// simTarget carries out the faults package's faults on a job running on the simulator: it is
// the faults.Target (and faults.Scheduler) of a run. The faults package says what should
// happen; simTarget knows where: which sim host a task lives on, which sim link joins two
// tasks, which keys of the durable store are checkpoint state and which are metadata.
//
// simenv connects hosts, not tasks, so a network fault on the link from task a to task b
// acts on the link between their hosts, and with it on every message between those two hosts.
// Windowed effects overlap: each is counted per host or link and undone by its EffectID.
type simTarget struct {
	job  *simenv.Job
	rt   *engine.Runtime
	env  *simenv.Env
	k    *sim.Kernel
	rand *rand.Rand // the glue's own sub-stream, for per-operation probabilities

	undo map[faults.EffectID]func()

	hostDown  []int // active crash effects per host ID
	partition []int // active cuts per link ID
	clog      []int // active holds (clogs, and partitions of data links) per link ID
	reorder   []int
	latency   []time.Duration
	skew      []int64 // per host ID

	restartDelay time.Duration // sum of active restart delays
	storage      []storageEffect
	commitFail   []commitFailEffect
	txnTimeouts  []txnTimeoutEffect
	baseTimeout  time.Duration

	// window is the window of the fault being injected, read from its trace event, for
	// effects the simulator applies for a duration rather than until undone (pause).
	window time.Duration
}

// reorderWindow is how far a reordered message may overtake others.
const reorderWindow = 5 * time.Millisecond

func newSimTarget(job *simenv.Job) *simTarget {
	k := job.Kernel
	t := &simTarget{
		job: job, rt: job.Runtime, env: job.Env, k: k,
		rand:        rand.New(k.Stream("scenarios/faults")),
		undo:        map[faults.EffectID]func(){},
		hostDown:    make([]int, len(k.Hosts())),
		skew:        make([]int64, len(k.Hosts())),
		partition:   make([]int, len(k.Links())),
		clog:        make([]int, len(k.Links())),
		reorder:     make([]int, len(k.Links())),
		latency:     make([]time.Duration, len(k.Links())),
		baseTimeout: job.Runtime.Config().Store.TxnTimeout,
	}
	job.Env.Storage().SetFaultHook(t.storageFault)
	job.Recorder.Watch(t.watch)
	return t
}

// watch sees every trace event: the window of a fault about to be injected, and commits
// that a commit-fail effect may fail.
func (t *simTarget) watch(e trace.Event) {
	switch e.Kind {
	case trace.KindFault:
		t.window = 0
		if v, ok := e.Attr("window_ns"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			t.window = time.Duration(n)
		}
	case trace.KindSinkPrecommit:
		// The commit of this transaction comes next; fail it with each active effect's
		// probability.
		for _, f := range t.commitFail {
			if t.rand.Float64() < f.probability {
				t.rt.FailStoreCommits(1)
				break
			}
		}
	}
}

// Now and At make simTarget the injector's Scheduler, on the kernel's clock and queue.
func (t *simTarget) Now() int64 { return int64(t.k.Now()) }

func (t *simTarget) At(tNanos int64, fn func()) { t.k.At(sim.Time(tNanos), fn) }

func (t *simTarget) host(name string) *sim.Host {
	for _, h := range t.k.Hosts() {
		if h.Name() == name {
			return h
		}
	}
	panic(fmt.Sprintf("scenarios: fault on host %q, which the run does not have (the schedule was checked)", name))
}

// hostsOf returns the hosts an endpoint may be on: its own, or every host for "any".
func (t *simTarget) hostsOf(endpoint string) []*sim.Host {
	if endpoint == "" {
		return t.k.Hosts()
	}
	return []*sim.Host{t.env.Host(endpoint)}
}

// links returns the sim links that carry link's messages, in kernel order.
func (t *simTarget) links(link faults.Link) []*sim.Link {
	var out []*sim.Link
	for _, from := range t.hostsOf(link.From) {
		for _, l := range from.Outbound() {
			for _, to := range t.hostsOf(link.To) {
				if l.To() == to {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

func (t *simTarget) CrashTask(task string) {
	// A task that is not running (crashed already, or between attempts) is not hit.
	_ = t.rt.CrashTask(task)
}

func (t *simTarget) CrashCoordinator() {
	if t.restartDelay == 0 {
		_ = t.rt.CrashCoordinator()
		return
	}
	// A delayed restart: take the coordinator's host down for the delay; simenv restarts
	// the coordinator with its host.
	h := t.env.Host("coordinator")
	if h.Crash() {
		t.k.After(t.restartDelay, func() { t.startHost(h) })
	}
}

func (t *simTarget) startHost(h *sim.Host) {
	if !h.Up() && t.hostDown[h.ID()] == 0 {
		h.Start()
	}
}

func (t *simTarget) CrashHost(id faults.EffectID, name string) {
	h := t.host(name)
	t.hostDown[h.ID()]++
	h.Crash()
	t.undo[id] = func() {
		t.hostDown[h.ID()]--
		if t.restartDelay > 0 {
			t.k.After(t.restartDelay, func() { t.startHost(h) })
			return
		}
		t.startHost(h)
	}
}

func (t *simTarget) PauseHost(id faults.EffectID, name string) {
	// The simulator pauses for a duration, so the pause lasts its window even if heal
	// comes first; heal happens at the end of the fault phase, which swarm windows respect.
	if h := t.host(name); h.Up() && !h.Paused() && t.window > 0 {
		h.Pause(t.window)
	}
	t.undo[id] = func() {}
}

func (t *simTarget) DelayRestarts(id faults.EffectID, delayNanos int64) {
	d := time.Duration(delayNanos)
	t.restartDelay += d
	t.undo[id] = func() { t.restartDelay -= d }
}

// DropMessages needs simenv to tell barriers and control messages apart on a host link;
// Plan refuses schedules with net.drop until it can, so this is never called.
func (t *simTarget) DropMessages(faults.EffectID, faults.Link, faults.Message, float64) {
	panic("scenarios: net.drop reached the target, but Plan refuses it")
}

func (t *simTarget) DropRecords(faults.EffectID, faults.Link, float64) {
	panic("scenarios: data.drop reached the target, but Plan refuses it")
}

func (t *simTarget) DuplicateRecords(faults.EffectID, faults.Link, float64) {
	panic("scenarios: data.duplicate reached the target, but Plan refuses it")
}

func (t *simTarget) BreakChannel(link faults.Link) {
	// A break is a lost connection: in-flight messages are lost and both ends fail. The link
	// is repaired at once, as a new connection would be made.
	for _, l := range t.links(link) {
		l.Break()
		l.Repair()
	}
}

// counted applies a per-link effect that holds while any effect on the link does.
func (t *simTarget) counted(id faults.EffectID, links []*sim.Link, count []int, set func(*sim.Link, bool)) {
	for _, l := range links {
		count[l.ID()]++
		if count[l.ID()] == 1 {
			set(l, true)
		}
	}
	t.undo[id] = func() {
		for _, l := range links {
			count[l.ID()]--
			if count[l.ID()] == 0 {
				set(l, false)
			}
		}
	}
}

func (t *simTarget) DelayLink(id faults.EffectID, link faults.Link, delayNanos int64) {
	d := time.Duration(delayNanos)
	links := t.links(link)
	for _, l := range links {
		t.latency[l.ID()] += d
		l.SetExtraLatency(t.latency[l.ID()])
	}
	t.undo[id] = func() {
		for _, l := range links {
			t.latency[l.ID()] -= d
			l.SetExtraLatency(t.latency[l.ID()])
		}
	}
}

// Partition cuts the links to and from the coordinator's host, where control messages
// travel and are lost, and holds every other link, which carries data channels: a
// partitioned data channel stalls and delivers in order when it heals (a stalled TCP
// connection), it never skips records.
func (t *simTarget) Partition(id faults.EffectID, link faults.Link, oneWay bool) {
	links := t.links(link)
	if !oneWay {
		links = append(links, t.links(faults.Link{From: link.To, To: link.From})...)
	}
	coordinator := t.env.Host("coordinator")
	var cut, held []*sim.Link
	for _, l := range links {
		if l.From() == coordinator || l.To() == coordinator {
			cut = append(cut, l)
		} else {
			held = append(held, l)
		}
	}
	t.counted(id, cut, t.partition, (*sim.Link).SetPartitioned)
	cutUndo := t.undo[id]
	t.counted(id, held, t.clog, (*sim.Link).SetClogged)
	heldUndo := t.undo[id]
	t.undo[id] = func() { cutUndo(); heldUndo() }
}

func (t *simTarget) Clog(id faults.EffectID, link faults.Link) {
	t.counted(id, t.links(link), t.clog, (*sim.Link).SetClogged)
}

func (t *simTarget) ReorderRecords(id faults.EffectID, link faults.Link) {
	t.counted(id, t.links(link), t.reorder, func(l *sim.Link, on bool) {
		if on {
			l.SetReorder(reorderWindow)
		} else {
			l.SetReorder(0)
		}
	})
}

func (t *simTarget) SkewTimers(id faults.EffectID, name string, skewPPM int64) {
	h := t.host(name)
	t.skew[h.ID()] += skewPPM
	h.SetTimerSkew(t.skew[h.ID()], 0)
	t.undo[id] = func() {
		t.skew[h.ID()] -= skewPPM
		h.SetTimerSkew(t.skew[h.ID()], 0)
	}
}

func (t *simTarget) TimeOutTransactions(id faults.EffectID, timeoutNanos int64) {
	t.txnTimeouts = append(t.txnTimeouts, txnTimeoutEffect{id: id, timeout: time.Duration(timeoutNanos)})
	t.applyTxnTimeout()
	t.undo[id] = func() {
		t.txnTimeouts = removeEffect(t.txnTimeouts, id, func(e txnTimeoutEffect) faults.EffectID { return e.id })
		t.applyTxnTimeout()
	}
}

// applyTxnTimeout sets the store's timeout to the shortest in force: the configured one,
// or any active effect's.
func (t *simTarget) applyTxnTimeout() {
	timeout := t.baseTimeout
	for _, e := range t.txnTimeouts {
		if timeout == 0 || e.timeout < timeout {
			timeout = e.timeout
		}
	}
	t.rt.SetTxnTimeout(timeout)
}

func (t *simTarget) FailCommits(id faults.EffectID, probability float64) {
	t.commitFail = append(t.commitFail, commitFailEffect{id: id, probability: probability})
	t.undo[id] = func() {
		t.commitFail = removeEffect(t.commitFail, id, func(e commitFailEffect) faults.EffectID { return e.id })
	}
}

func (t *simTarget) End(id faults.EffectID) {
	undo, ok := t.undo[id]
	if !ok {
		panic(fmt.Sprintf("scenarios: End(%d) of an effect that was never started or already ended", id))
	}
	delete(t.undo, id)
	undo()
}

// Heal restarts every host that is still down, in creation order. Tasks come back through
// the engine's failover, daemons with their hosts.
func (t *simTarget) Heal() {
	t.restartDelay = 0
	for _, h := range t.k.Hosts() {
		if !h.Up() {
			h.Start()
		}
	}
}

type txnTimeoutEffect struct {
	id      faults.EffectID
	timeout time.Duration
}

type commitFailEffect struct {
	id          faults.EffectID
	probability float64
}

func removeEffect[E any](effects []E, id faults.EffectID, idOf func(E) faults.EffectID) []E {
	out := effects[:0]
	for _, e := range effects {
		if idOf(e) != id {
			out = append(out, e)
		}
	}
	return out
}

var _ faults.Target = (*simTarget)(nil)
var _ faults.Scheduler = (*simTarget)(nil)
