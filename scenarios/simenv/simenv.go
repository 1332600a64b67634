// Package simenv runs the engine on the deterministic simulator: it implements engine.Env
// with sim hosts, links and storage.
//
// Every engine process (a task, the coordinator, the external store, a reader) is placed on
// a sim host by a Placement function. Processes on one host share its fate: when the host
// crashes, each of its processes dies and is told (engine.Process.Crashed), its timers and
// storage completions are dropped, and messages in flight to it are lost. Messages between
// processes travel over sim links between their hosts (a self-link for processes on the same
// host), so they are FIFO per pair of processes and see the link's latency and faults. A
// message is delivered only to the incarnation of the receiver that was current when it was
// sent. When a link breaks (a lost connection), the tasks on both of its hosts fail, as
// Flink tasks do when a TCP connection to a peer is lost.
//
// When a host restarts, simenv restarts the engine's daemons placed on it (coordinator,
// external store, readers); tasks are redeployed by the coordinator's failover.
//
// For fault injection: Env.Host and Hosts give the sim hosts to crash, pause or skew;
// Kernel().Links() the links to partition, clog or filter; Storage() the store to fail.
// A link filter sees simenv's envelopes: Unwrap returns the processes at both ends and the
// engine message, and engine.Classify its class. simenv owns the kernel's observer (it
// learns of host crashes through it); harnesses observe through Env.SetObserver. NewJob
// assembles a kernel, an Env and a job; StandardJob and RunStandard are the benchmark
// scenario.
package simenv

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// Config says where processes run and how the network and storage behave.
type Config struct {
	// Placement maps a process name to the name of its host. Hosts are created for every
	// name it returns for the job's processes.
	Placement func(process string) string
	// Link configures every link between two hosts; Local the self-link of each host.
	Link  sim.LinkConfig
	Local sim.LinkConfig
	// HostLinks overrides Link (or Local) for the link from host [0] to host [1], by host
	// names; a pair with no such link is ignored.
	HostLinks map[[2]string]sim.LinkConfig
	// Storage configures the durable store for checkpoint state and metadata.
	Storage sim.StoreConfig
	// LeaderChecked is the prefix of the keys whose writes the store checks against their
	// writer's standing, as Flink's high-availability store (ZooKeeper, Kubernetes) checks
	// the leader's: a write lands only while no newer incarnation of the writing process
	// has been spawned, so that a write a crashed coordinator left in flight never lands
	// after its successor read the store. Empty: none.
	LeaderChecked string
}

// DefaultConfig places the coordinator on host "jm", the external store and its readers on
// "ext", and task i of every operator on host "tm-<i mod taskHosts>" (so every task host
// holds one task of each operator, like Flink's slot sharing).
func DefaultConfig(taskHosts int) Config {
	return Config{
		Placement: DefaultPlacement(taskHosts),
		Link:      sim.LinkConfig{Latency: 500 * time.Microsecond, Jitter: 200 * time.Microsecond, Capacity: 4096},
		Local:     sim.LinkConfig{Latency: 20 * time.Microsecond, Capacity: 4096},
		Storage:   sim.StoreConfig{Latency: 2 * time.Millisecond, Jitter: time.Millisecond},
		// The engine's completed-checkpoint store and id counter (engine/metadata.go).
		LeaderChecked: "meta/",
	}
}

// DefaultPlacement is the placement of DefaultConfig.
func DefaultPlacement(taskHosts int) func(string) string {
	if taskHosts < 1 {
		panic(fmt.Sprintf("simenv: %d task hosts", taskHosts))
	}
	return func(process string) string {
		switch {
		case process == "coordinator":
			return "jm"
		case process == "extstore" || strings.HasPrefix(process, engine.ReaderPrefix):
			return "ext"
		}
		return fmt.Sprintf("tm-%d", taskIndex(process)%taskHosts)
	}
}

// GraphPlacement is DefaultPlacement for the job graph g, whose operators may name their
// tasks (engine.Operator.TaskNames): the index of such a task is looked up in g rather than
// parsed from its name, so task i of every operator still runs on tm-<i mod taskHosts>.
func GraphPlacement(g *engine.Graph, taskHosts int) func(string) string {
	place := DefaultPlacement(taskHosts)
	named := make(map[string]int)
	for _, op := range g.Operators {
		for i, name := range op.TaskNames {
			named[name] = i
		}
	}
	if len(named) == 0 {
		return place
	}
	return func(process string) string {
		if i, ok := named[process]; ok {
			return fmt.Sprintf("tm-%d", i%taskHosts)
		}
		return place(process)
	}
}

// taskIndex parses the index of a task id "<op>-<index>".
func taskIndex(id string) int {
	n, mul := 0, 1
	for i := len(id) - 1; i >= 0; i-- {
		c := id[i]
		if c == '-' {
			return n
		}
		if c < '0' || c > '9' {
			break
		}
		n += int(c-'0') * mul
		mul *= 10
	}
	panic(fmt.Sprintf("simenv: %q is not a task id <operator>-<index>", id))
}

// Env implements engine.Env on a sim kernel. It is created with the names of all
// processes the job will spawn, which fixes the hosts and links.
type Env struct {
	k         *sim.Kernel
	rec       *trace.Recorder
	cfg       Config
	storage   *sim.Store
	hosts     []*host
	byName    map[string]*host     // host name -> host
	endpoints map[string]*endpoint // process name -> its placement and current incarnation
	rands     map[string]*rand.Rand
	daemons   []string // non-task processes, in the order given to New
	rt        *engine.Runtime
	observer  func(sim.Event)
	// onSend, if set, sees every Send of a live process (SetSendObserver).
	onSend func(from, to string, msg any)
	// envelopes is the rest of the block the next envelopes are cut from (newEnvelope).
	envelopes []envelope
}

// New builds the hosts (started) and links for processes on k, recording into rec.
func New(k *sim.Kernel, rec *trace.Recorder, cfg Config, processes []string) *Env {
	e := &Env{k: k, rec: rec, cfg: cfg, byName: make(map[string]*host),
		endpoints: make(map[string]*endpoint), rands: make(map[string]*rand.Rand)}
	e.storage = k.NewStore("checkpoints", cfg.Storage)
	for _, p := range processes {
		e.place(p)
		if !isTask(p) {
			e.daemons = append(e.daemons, p)
		}
	}
	for _, from := range e.hosts {
		for _, to := range e.hosts {
			e.connect(from, to)
		}
	}
	e.SetObserver(nil)
	for _, h := range e.hosts {
		h.h.Start()
	}
	return e
}

// place gives process p an endpoint on the host the placement names, adding the host if
// it is new; it reports a new host.
func (e *Env) place(p string) (*host, bool) {
	name := e.cfg.Placement(p)
	h, ok := e.byName[name]
	if !ok {
		h = &host{env: e, index: len(e.hosts)}
		h.h = e.k.AddHost(name, h.boot)
		e.hosts = append(e.hosts, h)
		e.byName[name] = h
	}
	e.endpoints[p] = &endpoint{host: h}
	return h, !ok
}

// connect makes the link from one host to another.
func (e *Env) connect(from, to *host) {
	lc := e.cfg.Link
	if from == to {
		lc = e.cfg.Local
	}
	if own, ok := e.cfg.HostLinks[[2]string{from.h.Name(), to.h.Name()}]; ok {
		lc = own
	}
	l := e.k.Connect(from.h.Name()+"->"+to.h.Name(), from.h, to.h, lc)
	for len(from.links) <= to.index {
		from.links = append(from.links, nil)
	}
	from.links[to.index] = &outLink{l: l}
}

// placeLate places a task the job names only once it runs: a task of a rescaled job. Its
// host, if new, is linked both ways to every other and started.
func (e *Env) placeLate(name string) {
	h, added := e.place(name)
	if !added {
		return
	}
	for _, other := range e.hosts {
		e.connect(h, other)
		if other != h {
			e.connect(other, h)
		}
	}
	h.h.Start()
}

// Attach tells the Env which runtime runs on it, so that daemons placed on a host that
// restarts are restarted with it.
func (e *Env) Attach(rt *engine.Runtime) { e.rt = rt }

// SetObserver installs fn to see every kernel event after simenv did. simenv owns the
// kernel's observer (it learns of host crashes through it), so harnesses observe here.
// Without a harness observer the kernel builds only the events simenv needs, not one per
// message.
func (e *Env) SetObserver(fn func(sim.Event)) {
	e.observer = fn
	if fn == nil {
		e.k.SetObserverKinds(e.observe, sim.EventHostCrash)
		return
	}
	e.k.SetObserver(e.observe)
}

// SetSendObserver installs fn to see every message a live process sends, by process name,
// when it sends it: before routing, so it also sees messages to processes that are dead or
// were never placed, which are lost without reaching a link and so are invisible to the
// kernel's observer. nil removes it. The message is the sender's: read it during the call.
func (e *Env) SetSendObserver(fn func(from, to string, msg any)) { e.onSend = fn }

// Kernel returns the kernel the Env runs on.
func (e *Env) Kernel() *sim.Kernel { return e.k }

// Storage returns the durable store of checkpoint state and metadata, for storage faults.
func (e *Env) Storage() *sim.Store { return e.storage }

// Host returns the sim host a process is placed on.
func (e *Env) Host(process string) *sim.Host {
	ep, ok := e.endpoints[process]
	if !ok {
		panic(fmt.Sprintf("simenv: no placement for process %q", process))
	}
	return ep.host.h
}

// Hosts returns every host in creation order.
func (e *Env) Hosts() []*sim.Host {
	hs := make([]*sim.Host, len(e.hosts))
	for i, h := range e.hosts {
		hs[i] = h.h
	}
	return hs
}

// Now implements engine.Env.
func (e *Env) Now() int64 { return e.k.Now().Nanoseconds() }

// Emit implements engine.Env.
func (e *Env) Emit(ev trace.Event) { e.rec.Emit(e.Now(), ev) }

// EmitStateLive traces what the checkpoint storage holds now (state.live): the pieces
// stored, less those whose delete is in flight, and the bytes of all checkpoint state. A
// scenario run calls it at its end, for a job with incremental snapshots.
func (e *Env) EmitStateLive() {
	var pieces []string
	var bytes int64
	for _, key := range e.storage.Keys(engine.StatePrefix) {
		if e.storage.Deleting(key) {
			continue
		}
		if value, err := e.storage.Peek(key); err == nil {
			bytes += int64(len(value))
		}
		if strings.HasPrefix(key, engine.PiecePrefix) {
			pieces = append(pieces, key)
		}
	}
	e.Emit(trace.StateLive(pieces, bytes))
}

// Rand implements engine.Env: the kernel stream "engine/<name>".
func (e *Env) Rand(name string) *rand.Rand {
	if r, ok := e.rands[name]; ok {
		return r
	}
	r := rand.New(e.k.Stream("engine/" + name))
	e.rands[name] = r
	return r
}

// Spawn implements engine.Env.
func (e *Env) Spawn(name string, p engine.Process) (engine.Proc, error) {
	ep, ok := e.endpoints[name]
	if !ok && e.rt != nil && slices.Contains(e.rt.Tasks(), name) {
		e.placeLate(name)
		ep, ok = e.endpoints[name]
	}
	if !ok {
		// Every process the engine spawns is one it named (Runtime.Processes, and the
		// tasks of a rescaled job, Runtime.Tasks), which is how each got a host: another
		// is the engine's broken invariant, judged as such.
		panic(&engine.InvariantError{Message: fmt.Sprintf("engine: spawned process %q, which it did not name among its processes", name)})
	}
	h := ep.host
	if !h.h.Up() {
		return nil, engine.ErrHostDown
	}
	if old := ep.current; old != nil {
		old.alive = false
	}
	pr := &proc{env: e, name: name, endpoint: ep, host: h, hostIncarnation: h.h.Incarnation(), alive: true, p: p}
	ep.current = pr
	h.procs = append(h.procs, pr)
	return pr, nil
}

// observe learns of host crashes and link breaks, then passes events on.
func (e *Env) observe(ev sim.Event) {
	if ev.Kind == sim.EventHostCrash {
		e.byName[ev.Host.Name()].crashed(ev.Incarnation)
	}
	if e.observer != nil {
		e.observer(ev)
	}
}
