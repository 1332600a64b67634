package simtarget_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// The rig is a small world in the shape of a job: a source task "src" on host h-src, a task
// "sum" on h-sum and the coordinator on h-coord, with a data channel src -> sum (and its
// reverse, for credits), control links between the coordinator and both tasks, and two
// stores. Every link has a fixed 1ms latency unless the options say otherwise, so the tests
// can say exactly when a message should arrive.

const ms = sim.Time(time.Millisecond)

// msAt returns the instant x milliseconds into the run; x may have a fraction (10.5).
func msAt(x float64) sim.Time { return sim.Time(x * float64(time.Millisecond)) }

// nanos is msAt as the int64 that faults speaks.
func nanos(x float64) int64 { return msAt(x).Nanoseconds() }

// msg is a classified payload numbered per stream, so that a test sees what was lost,
// duplicated or reordered.
type msg struct {
	class simtarget.Class
	n     int
}

func classify(m any) simtarget.Class { return m.(*msg).class }

// delivery is one message as a host received it.
type delivery struct {
	at    sim.Time
	link  string
	class simtarget.Class
	n     int
}

// task -> host, and the links of the rig, by fault-model endpoints.
var (
	rigHosts = map[string]string{"src": "h-src", "sum": "h-sum", faults.Coordinator: "h-coord"}
	rigLinks = []faults.Link{
		{From: "src", To: "sum"}, {From: "sum", To: "src"},
		{From: faults.Coordinator, To: "src"}, {From: "src", To: faults.Coordinator},
		{From: faults.Coordinator, To: "sum"}, {From: "sum", To: faults.Coordinator},
	}
)

type rigOptions struct {
	seed   uint64
	jitter time.Duration
	config simtarget.Config // Hosts, Routes, Stores and Classify are filled in
}

type rig struct {
	t      *testing.T
	k      *sim.Kernel
	hosts  map[string]*sim.Host // by host name
	links  map[faults.Link]*sim.Link
	stores map[string]*sim.Store
	world  *simtarget.World
	engine *recordingEngine
	rec    *trace.Recorder

	got      []delivery
	broken   []string            // "<host> <link> <time>" for each link-broken notification
	boots    map[string]int      // host name -> starts
	sendErrs map[error]int       // refused sends, by error
	timers   map[string]sim.Time // host timer label -> when it fired
}

func newRig(t *testing.T, o rigOptions) *rig {
	t.Helper()
	r := &rig{
		t:        t,
		k:        sim.New(sim.Config{Seed: o.seed, MaxTime: sim.TimeAt(time.Minute)}),
		hosts:    map[string]*sim.Host{},
		links:    map[faults.Link]*sim.Link{},
		stores:   map[string]*sim.Store{},
		boots:    map[string]int{},
		sendErrs: map[error]int{},
		timers:   map[string]sim.Time{},
		rec:      trace.NewRecorder(nil, trace.Header{Scenario: "simtarget-rig", Seed: o.seed}),
	}
	r.rec.KeepEvents()
	taskOf := map[string]string{}
	for _, task := range []string{"src", "sum", faults.Coordinator} {
		name := rigHosts[task]
		taskOf[name] = task
		r.hosts[name] = r.k.AddHost(name, func(h *sim.Host) { r.boot(h, task) })
	}
	var routes []simtarget.Route
	for _, l := range rigLinks {
		from, to := r.hosts[rigHosts[l.From]], r.hosts[rigHosts[l.To]]
		sl := r.k.Connect(l.String(), from, to, sim.LinkConfig{Latency: time.Millisecond, Jitter: o.jitter})
		r.links[l] = sl
		routes = append(routes, simtarget.Route{Link: l, Sim: sl})
	}
	for _, name := range []string{"disk", "meta"} {
		r.stores[name] = r.k.NewStore(name, sim.StoreConfig{Latency: time.Millisecond})
	}
	c := o.config
	c.Routes, c.Classify = routes, classify
	w, err := simtarget.NewWorld(r.k, c)
	if err != nil {
		t.Fatal(err)
	}
	r.world = w
	r.engine = &recordingEngine{}
	for _, name := range []string{"h-src", "h-sum", "h-coord"} {
		r.hosts[name].Start()
	}
	return r
}

// boot is every host's boot function: it logs deliveries and broken links, and traces the
// receipt of barriers and records the way an engine would, so that event triggers have
// something to match.
func (r *rig) boot(h *sim.Host, task string) {
	r.boots[h.Name()]++
	h.SetReceiver(func(l *sim.Link, payload any) {
		m := payload.(*msg)
		r.got = append(r.got, delivery{at: r.k.Now(), link: l.Name(), class: m.class, n: m.n})
		from := linkOf(l).From
		switch m.class {
		case simtarget.ClassBarrier:
			r.emit(trace.Event{Kind: trace.KindBarrierRecv, Task: task, From: from, CP: uint64(m.n)})
		case simtarget.ClassRecord:
			r.emit(trace.Event{Kind: trace.KindRecordRecv, Task: task, From: from, RID: strconv.Itoa(m.n)})
		}
	})
	h.SetLinkBroken(func(l *sim.Link) {
		r.broken = append(r.broken, fmt.Sprintf("%s %s %v", h.Name(), l.Name(), r.k.Now()))
	})
}

func linkOf(l *sim.Link) faults.Link {
	for _, fl := range rigLinks {
		if fl.String() == l.Name() {
			return fl
		}
	}
	panic("rig: unknown link " + l.Name())
}

func (r *rig) emit(e trace.Event) { r.rec.Emit(r.k.Now().Nanoseconds(), e) }

// stream sends count messages of class on link, the i-th (n = i) at start + i*every. Sends
// run as kernel events scheduled now, so at an instant they shared with a fault they come
// before it (the injector schedules later).
func (r *rig) stream(l faults.Link, class simtarget.Class, start sim.Time, every time.Duration, count int) {
	sl := r.links[l]
	for i := range count {
		r.k.At(start+sim.Time(every)*sim.Time(i), func() {
			if err := sl.Send(&msg{class: class, n: i}); err != nil {
				r.sendErrs[err]++
			}
		})
	}
}

// received returns the numbers of the messages of class delivered on l, in delivery order.
func (r *rig) received(l faults.Link, class simtarget.Class) []int {
	var ns []int
	for _, d := range r.got {
		if d.link == l.String() && d.class == class {
			ns = append(ns, d.n)
		}
	}
	return ns
}

// arrival returns when message n of class arrived on l (the first time).
func (r *rig) arrival(l faults.Link, class simtarget.Class, n int) sim.Time {
	r.t.Helper()
	for _, d := range r.got {
		if d.link == l.String() && d.class == class && d.n == n {
			return d.at
		}
	}
	r.t.Fatalf("message %s #%d never arrived on %s", class, n, l)
	return 0
}

// arrivalsBetween returns the deliveries on l with lo < at < hi.
func (r *rig) arrivalsBetween(l faults.Link, lo, hi sim.Time) []delivery {
	var out []delivery
	for _, d := range r.got {
		if d.link == l.String() && d.at > lo && d.at < hi {
			out = append(out, d)
		}
	}
	return out
}

// timerAt arms a host timer on host at instant at (from a kernel event), for d; when it
// fires, timers[label] records the instant.
func (r *rig) timerAt(at sim.Time, host string, d time.Duration, label string) {
	r.k.At(at, func() {
		r.hosts[host].After(d, func() { r.timers[label] = r.k.Now() })
	})
}

// storeResult is what one store operation came back with.
type storeResult struct {
	done  bool
	at    sim.Time
	err   error
	value []byte
}

// put issues a put from h-src at instant at.
func (r *rig) put(at sim.Time, store, key, value string) *storeResult {
	res := &storeResult{}
	r.k.At(at, func() {
		r.stores[store].Put(r.hosts["h-src"], key, []byte(value), func(err error) {
			res.done, res.at, res.err = true, r.k.Now(), err
		})
	})
	return res
}

// get issues a get from h-src at instant at.
func (r *rig) get(at sim.Time, store, key string) *storeResult {
	res := &storeResult{}
	r.k.At(at, func() {
		r.stores[store].Get(r.hosts["h-src"], key, func(v []byte, err error) {
			res.done, res.at, res.err, res.value = true, r.k.Now(), err, v
		})
	})
	return res
}

var rigPhases = faults.Phases{Fault: faults.Duration(nanos(100)), Heal: faults.Duration(nanos(10)), Liveness: faults.Duration(nanos(10))}

// inject builds an injector for sched on the rig's composite target, starts it now and
// returns it. Chance triggers draw from a stream of the kernel's seed.
func (r *rig) inject(phases faults.Phases, entries ...faults.Entry) *faults.Injector {
	r.t.Helper()
	hi, lo := sim.DeriveSeed(r.k.Seed(), "rig/injector")
	inj, err := faults.NewInjector(faults.Config{
		Schedule:  faults.Schedule{Entries: entries},
		Phases:    phases,
		Target:    simtarget.Target{World: r.world, Engine: r.engine},
		Scheduler: simtarget.Scheduler{Kernel: r.k},
		Recorder:  r.rec,
		Rand:      rand.New(rand.NewPCG(hi, lo)),
	})
	if err != nil {
		r.t.Fatal(err)
	}
	inj.Start()
	return inj
}

// run runs the kernel until x milliseconds and fails on a limit verdict.
func (r *rig) run(x float64) {
	r.t.Helper()
	if reason := r.k.RunUntil(msAt(x)); reason.IsLimit() {
		r.t.Fatalf("run hit %v", reason)
	}
}

// seq returns [lo, hi) as a slice.
func seq(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// concat joins slices of numbers.
func concat(parts ...[]int) []int { return slices.Concat(parts...) }

// recordingEngine is an engine half that records what it is asked, like a glue would log
// its own effects, and remembers which ids are its own.
type recordingEngine struct {
	calls []string
	own   []faults.EffectID
}

func (e *recordingEngine) log(format string, args ...any) {
	e.calls = append(e.calls, fmt.Sprintf(format, args...))
}
func (e *recordingEngine) CrashTask(task string) { e.log("CrashTask(%s)", task) }
func (e *recordingEngine) CrashCoordinator()     { e.log("CrashCoordinator()") }
func (e *recordingEngine) TriggerSavepoint()     { e.log("TriggerSavepoint()") }
func (e *recordingEngine) StopWithSavepoint(drain bool) {
	e.log("StopWithSavepoint(%v)", drain)
}
func (e *recordingEngine) TriggerCheckpoint()   { e.log("TriggerCheckpoint()") }
func (e *recordingEngine) ResubmitJob(m string) { e.log("ResubmitJob(%s)", m) }
func (e *recordingEngine) RescaleJob(op string, p int, mode string) {
	e.log("RescaleJob(%s, %d, %s)", op, p, mode)
}
func (e *recordingEngine) TimeOutTransactions(id faults.EffectID, timeoutNanos int64) {
	e.own = append(e.own, id)
	e.log("TimeOutTransactions(%d, %d)", id, timeoutNanos)
}
func (e *recordingEngine) FailCommits(id faults.EffectID, p float64) {
	e.own = append(e.own, id)
	e.log("FailCommits(%d, %v)", id, p)
}
func (e *recordingEngine) FailSinkWrites(id faults.EffectID, p float64, lost bool) {
	e.own = append(e.own, id)
	e.log("FailSinkWrites(%d, %v, %v)", id, p, lost)
}
func (e *recordingEngine) End(id faults.EffectID) {
	if slices.Contains(e.own, id) {
		e.log("End(%d)", id)
	}
}
func (e *recordingEngine) Heal() { e.log("Heal()") }
