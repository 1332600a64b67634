package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"time"
)

// DemoResult summarises one Demo run.
type DemoResult struct {
	Seed   uint64
	Hash   string // hex SHA-256 of the log, line by line; equal seeds give equal hashes
	Lines  int
	Events uint64 // kernel events fired
	End    Time   // virtual time at the end
	Stop   StopReason
}

// Demo runs a small randomized workload on the kernel and writes its log to w (nil for no
// output): four hosts gossip counters over a full mesh of jittery, bounded links, persist
// every third message they receive and read it back after a restart, while a scheduled fault
// phase pauses one host, crashes and restarts another, partitions, clogs and breaks links and
// corrupts some writes; then a heal phase lifts every fault. The log has one line per kernel
// event and per workload step, "<virtual ns> <what>", and its hash is the run's fingerprint:
// the determinism tests and `simrun` use it to show that a run is a function of its seed.
func Demo(seed uint64, w io.Writer) (DemoResult, error) {
	d := newDemoLog(w)
	k := New(Config{Seed: seed, MaxTime: TimeAt(time.Second), MaxEvents: 1_000_000})
	k.SetObserver(func(e Event) { d.printf(k, "%s", e) })
	d.printf(k, "demo seed=%d", seed)

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
	scheduleDemoFaults(k, hosts, links, disk, d)

	// Fault phase, then heal and a liveness phase in which the hosts run undisturbed.
	stop := k.RunUntil(TimeAt(120 * time.Millisecond))
	if !stop.IsLimit() {
		d.printf(k, "heal")
		for _, l := range k.Links() {
			l.SetPartitioned(false)
			l.SetClogged(false)
			l.Repair()
		}
		disk.SetFaultHook(nil)
		for _, h := range hosts {
			if !h.Up() {
				h.Start()
			}
		}
		stop = k.RunUntil(TimeAt(200 * time.Millisecond))
	}
	// What survived in the store, read the way a checker would (corrupt values show here).
	for _, key := range disk.Keys("") {
		value, err := disk.Peek(key)
		d.printf(k, "stored %s value=%q err=%v", key, value, err)
	}
	d.printf(k, "end stop=%s events=%d", stop, k.Events())
	return DemoResult{
		Seed:   seed,
		Hash:   hex.EncodeToString(d.hash.Sum(nil)),
		Lines:  d.lines,
		Events: k.Events(),
		End:    k.Now(),
		Stop:   stop,
	}, d.err
}

// bootDemoHost is the demo hosts' boot function: it builds one incarnation.
func bootDemoHost(h *Host, disk *Store, d *demoLog) {
	k := h.Kernel()
	random := k.Stream("demo/" + h.Name())
	received := 0
	lastKey := "last/" + h.Name()
	disk.Get(h, lastKey, func(value []byte, err error) {
		d.printf(k, "%s restored value=%q err=%v", h.Name(), value, err)
	})
	h.SetReceiver(func(l *Link, msg any) {
		received++
		d.printf(k, "%s got %v from %s", h.Name(), msg, l.From().Name())
		if received%3 == 0 {
			value := []byte(fmt.Sprint(msg))
			disk.Put(h, lastKey, value, func(err error) {
				d.printf(k, "%s stored %q err=%v", h.Name(), value, err)
			})
		}
	})
	h.SetWritable(func(l *Link) { d.printf(k, "%s may send on %s again", h.Name(), l.Name()) })
	h.SetLinkBroken(func(l *Link) { d.printf(k, "%s lost link %s", h.Name(), l.Name()) })
	sent := 0
	var tick *Timer
	tick = h.NewTimer(func() {
		out := h.Outbound()
		l := out[random.Choice(len(out))]
		sent++
		msg := h.Name() + "." + strconv.FormatUint(h.Incarnation(), 10) + "#" + strconv.Itoa(sent)
		if err := l.Send(msg); err != nil {
			d.printf(k, "%s send %s on %s: %v", h.Name(), msg, l.Name(), err)
		}
		tick.Reset(random.DurationBetween(time.Millisecond, 4*time.Millisecond))
	})
	tick.Reset(random.Exponential(2 * time.Millisecond))
}

// scheduleDemoFaults draws the fault phase from its own stream and arms it on kernel timers.
func scheduleDemoFaults(k *Kernel, hosts []*Host, links map[[2]int]*Link, disk *Store, d *demoLog) {
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
	d.printf(k, "faults armed")
}

// demoLog writes log lines to the output and to a running hash.
type demoLog struct {
	out   io.Writer
	hash  hash.Hash
	lines int
	err   error
	line  []byte
}

func newDemoLog(w io.Writer) *demoLog {
	if w == nil {
		w = io.Discard
	}
	return &demoLog{out: w, hash: sha256.New()}
}

func (d *demoLog) printf(k *Kernel, format string, args ...any) {
	d.line = strconv.AppendInt(d.line[:0], k.Now().Nanoseconds(), 10)
	d.line = append(d.line, ' ')
	d.line = fmt.Appendf(d.line, format, args...)
	d.line = append(d.line, '\n')
	d.lines++
	d.hash.Write(d.line)
	if d.err == nil {
		if _, err := d.out.Write(d.line); err != nil {
			d.err = errors.Join(errors.New("sim: demo log"), err)
		}
	}
}
