package sim

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// demoResult summarises one runDemo run.
type demoResult struct {
	Seed        uint64
	TraceHash   string // the trace hash (trace.Recorder.Hash); equal seeds give equal hashes
	TraceEvents uint64 // events in the trace
	Events      uint64 // kernel events fired
	End         Time   // virtual time at the end
	Stop        StopReason
}

// demoScenario names the demo in its trace header.
const demoScenario = "sim-demo"

// runDemo runs a small randomized workload on the kernel and writes its trace to w as JSON Lines
// (nil for none): four hosts gossip counters over a full mesh of jittery, bounded links,
// persist every third message they receive and read it back after a restart, while a
// scheduled fault phase pauses one host, crashes and restarts another, partitions, clogs and
// breaks links, corrupts, tears and fails some writes and takes the store away for a while;
// then a heal phase lifts every fault and the hosts run on undisturbed. The trace holds every
// kernel event (kinds "sim.*", see Event.TraceEvent) and every workload step ("demo.step"),
// and its hash is the run's fingerprint: the determinism tests in demo_test.go use it to
// show that a run is a function of its seed. It lives among the tests because nothing else
// runs it: the kernel's API is what hosts use, and this is one workload on it.
func runDemo(seed uint64, w io.Writer) (demoResult, error) {
	k := New(Config{Seed: seed, MaxTime: TimeAt(time.Second), MaxEvents: 1_000_000})
	d := &demoLog{k: k, rec: trace.NewRecorder(w, trace.Header{Scenario: demoScenario, Seed: seed})}
	k.SetObserver(func(e Event) { d.rec.Emit(int64(e.At), e.TraceEvent()) })
	d.phase("fault")

	disk := k.NewStore("disk", StoreConfig{Latency: 2 * time.Millisecond, Jitter: 3 * time.Millisecond})
	const hostCount = 4
	hosts := make([]*Host, hostCount)
	for i := range hosts {
		hosts[i] = k.AddHost("n"+strconv.Itoa(i), func(h *Host) { bootDemoHost(h, disk, d) })
	}
	links := make(map[[2]int]*Link) // looked up by pair, never ranged over
	for i, from := range hosts {
		for j, to := range hosts {
			if i != j {
				name := from.Name() + "->" + to.Name()
				links[[2]int{i, j}] = k.Connect(name, from, to, LinkConfig{Latency: time.Millisecond, Jitter: 4 * time.Millisecond, Capacity: 4})
			}
		}
	}
	for _, h := range hosts {
		h.Start()
	}
	scheduleDemoFaults(k, hosts, links, disk)

	// Fault phase, then heal and a liveness phase in which the hosts run undisturbed.
	stop := k.RunUntil(TimeAt(120 * time.Millisecond))
	dumpDemoStore(disk, d)
	if !stop.IsLimit() {
		d.phase("heal")
		for _, l := range k.Links() {
			l.SetPartitioned(false)
			l.SetClogged(false)
			l.Repair()
		}
		disk.SetFaultHook(nil)
		disk.SetUnavailable(false)
		for _, h := range hosts {
			if !h.Up() {
				h.Start()
			}
		}
		stop = k.RunUntil(TimeAt(200 * time.Millisecond))
	}
	dumpDemoStore(disk, d)
	d.phase("end")
	err := d.rec.Flush()
	return demoResult{
		Seed:        seed,
		TraceHash:   d.rec.Hash(),
		TraceEvents: d.rec.Len(),
		Events:      k.Events(),
		End:         k.Now(),
		Stop:        stop,
	}, err
}

// bootDemoHost is the demo hosts' boot function: it builds one incarnation.
func bootDemoHost(h *Host, disk *Store, d *demoLog) {
	random := h.Kernel().Stream("demo/" + h.Name())
	received := 0
	lastKey := "last/" + h.Name()
	disk.Get(h, lastKey, func(value []byte, err error) {
		d.step(h, "restored value=%q err=%v", value, err)
	})
	h.SetReceiver(func(l *Link, msg any) {
		received++
		d.step(h, "got %v from %s", msg, l.From().Name())
		if received%3 == 0 {
			value := []byte(fmt.Sprint(msg))
			disk.Put(h, lastKey, value, func(err error) {
				d.step(h, "stored %q err=%v", value, err)
			})
		}
	})
	h.SetWritable(func(l *Link) { d.step(h, "may send on %s again", l.Name()) })
	h.SetLinkBroken(func(l *Link) { d.step(h, "lost link %s", l.Name()) })
	sent := 0
	var tick *Timer
	tick = h.NewTimer(func() {
		out := h.Outbound()
		l := out[random.Choice(len(out))]
		sent++
		msg := h.Name() + "." + strconv.FormatUint(h.Incarnation(), 10) + "#" + strconv.Itoa(sent)
		if err := l.Send(msg); err != nil {
			d.step(h, "send %s on %s: %v", msg, l.Name(), err)
		}
		tick.Reset(random.DurationBetween(time.Millisecond, 4*time.Millisecond))
	})
	tick.Reset(random.Exponential(2 * time.Millisecond))
}

// scheduleDemoFaults draws the fault phase from its own stream and arms it on kernel timers.
func scheduleDemoFaults(k *Kernel, hosts []*Host, links map[[2]int]*Link, disk *Store) {
	random := k.Stream("demo/faults")
	at := func(ms int64) Time { return TimeAt(time.Duration(ms) * time.Millisecond) }
	between := func(lo, hi int64) Time { return at(random.IntBetween(lo, hi)) }

	k.At(between(20, 30), func() { hosts[1].Pause(random.Pareto(time.Millisecond, 20*time.Millisecond, 1.2)) })
	k.At(between(40, 50), func() { hosts[2].Crash() })
	k.At(between(70, 80), func() { hosts[2].Start() })
	cut := links[[2]int{0, 3}]
	k.At(between(30, 40), func() { cut.SetPartitioned(true) })
	k.At(between(60, 70), func() { cut.SetPartitioned(false) })
	clogged := links[[2]int{3, 0}]
	k.At(between(50, 60), func() { clogged.SetClogged(true) })
	k.At(between(70, 75), func() { clogged.SetClogged(false) })
	k.At(between(85, 95), func() { links[[2]int{1, 2}].Break() })
	kinds := []StoreFaultKind{StoreFaultNone, StoreFaultCorrupt, StoreFaultTorn, StoreFaultFail}
	disk.SetFaultHook(func(op StoreOp) StoreFault {
		if op.Kind != OpPut {
			return StoreFault{}
		}
		return StoreFault{Kind: kinds[random.WeightedChoice([]uint64{6, 1, 1, 1})], ExtraLatency: random.DurationBetween(0, time.Millisecond)}
	})
	k.At(between(95, 105), func() { disk.SetUnavailable(true) })
	k.At(between(105, 110), func() { disk.SetUnavailable(false) })
}

// dumpDemoStore records what is in the store, read the way a checker would: corrupt values
// show as errors.
func dumpDemoStore(disk *Store, d *demoLog) {
	for _, key := range disk.Keys("") {
		value, err := disk.Peek(key)
		d.step(nil, "store holds %s value=%q err=%v", key, value, err)
	}
}

// demoLog turns the demo's steps into trace events.
type demoLog struct {
	k   *Kernel
	rec *trace.Recorder
}

// step records one workload step of host h (nil for the harness).
func (d *demoLog) step(h *Host, format string, args ...any) {
	e := trace.Event{Kind: "demo.step", Attrs: []trace.Attr{{Key: "what", Value: fmt.Sprintf(format, args...)}}}
	if h != nil {
		e.Task = h.Name()
	}
	d.rec.Emit(int64(d.k.Now()), e)
}

func (d *demoLog) phase(name string) {
	d.rec.Emit(int64(d.k.Now()), trace.Event{Kind: trace.KindPhase, Attrs: []trace.Attr{{Key: trace.AttrPhase, Value: name}}})
}
