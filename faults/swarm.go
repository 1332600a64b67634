package faults

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// Plan is what swarm testing chose for one seed: which fault kinds are on and how hard each
// hits. Different seeds switch different kinds on, so that across a sweep some runs see many
// crashes and no partitions, others the reverse, which finds bugs that an even mix dilutes.
type Plan struct {
	Kinds []KindRate // the kinds that are on, in Kinds() order
	// Crashable are the hosts that crash.host and pause.host may hit; the others stay up.
	Crashable []string
	// EventTriggers makes crashes fire at protocol events (a task's nth snapshot.ack, the
	// coordinator's nth checkpoint.complete) instead of at drawn times.
	EventTriggers bool
}

// KindRate is how hard one kind hits.
type KindRate struct {
	Kind Kind
	// PerSecond is the mean number of injections per virtual second of the fault phase.
	PerSecond float64
	// Probability applies per message, record, write or commit, for kinds that take one;
	// 0 for the others.
	Probability float64
}

// String returns the plan on one line, to print before a run with the seed.
func (p Plan) String() string {
	var b strings.Builder
	b.WriteString("swarm:")
	if len(p.Kinds) == 0 {
		b.WriteString(" no kinds")
	}
	for i, k := range p.Kinds {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s %.4g/s", k.Kind, k.PerSecond)
		if k.Probability != 0 {
			b.WriteString(" p=" + formatProbability(k.Probability))
		}
	}
	b.WriteString("; crashable=" + strings.Join(p.Crashable, ","))
	if p.EventTriggers {
		b.WriteString("; event triggers")
	}
	return b.String()
}

// SwarmSeed is Swarm with a generator seeded from seed alone.
func SwarmSeed(seed uint64, sys System, b Budget) (Plan, Schedule, error) {
	return Swarm(rand.New(rand.NewPCG(seed, 0x6661756c7473)), sys, b) // "faults"
}

// Swarm draws a plan for sys within budget b, then a schedule from the plan. Both are a
// deterministic function of r's state, sys and b. Every kind makes the same draws for the plan
// whether or not it ends up on, so one kind's parameters do not move when the system or the
// budget switches another kind off.
//
// The schedule keeps the budget: at most b.MaxFaults entries; every window and delay at most
// b.MaxWindow; every timed fault starts and ends inside the fault phase; crash.host and
// pause.host hit only Plan.Crashable; no out-of-model kind unless b.OutOfModel.
func Swarm(r *rand.Rand, sys System, b Budget) (Plan, Schedule, error) {
	if err := sys.Validate(); err != nil {
		return Plan{}, Schedule{}, err
	}
	if err := b.Validate(sys); err != nil {
		return Plan{}, Schedule{}, err
	}
	d := &drawer{r: r, sys: sys, budget: b}
	d.drawPlan()
	return d.plan, d.drawSchedule(), nil
}

// drawer holds one swarm draw.
type drawer struct {
	r      *rand.Rand
	sys    System
	budget Budget
	plan   Plan
}

// probabilities are the levels a probabilistic kind is drawn at: rare to heavy.
var probabilities = []float64{0.01, 0.05, 0.1, 0.25, 0.5}

func (d *drawer) drawPlan() {
	hosts := slices.Clone(d.sys.Hosts)
	d.r.Shuffle(len(hosts), func(i, j int) { hosts[i], hosts[j] = hosts[j], hosts[i] })
	d.plan.Crashable = hosts[:len(hosts)-min(len(hosts), d.budget.MinLiveHosts)]
	slices.Sort(d.plan.Crashable)
	d.plan.EventTriggers = d.r.IntN(2) == 0

	phaseSeconds := float64(d.sys.FaultPhase) / 1e9
	for _, k := range allKinds {
		on := d.r.IntN(2) == 0
		// Injections expected in the fault phase. The conversion keeps the product a product:
		// Go may otherwise fuse x*y+z into one FMA on some architectures, which rounds
		// differently (see sim/detmath.go).
		meanCount := 0.5 + float64(3.5*d.r.Float64())
		p := probabilities[d.r.IntN(len(probabilities))]
		if !on || !d.budget.allows(k) || !d.applicable(k) {
			continue
		}
		rate := KindRate{Kind: k, PerSecond: meanCount / phaseSeconds}
		if kindTable[k].allowed&fieldProbability != 0 {
			rate.Probability = p
		}
		d.plan.Kinds = append(d.plan.Kinds, rate)
	}
}

// applicable reports whether the system has something for k to hit.
func (d *drawer) applicable(k Kind) bool {
	switch k {
	case CrashTask, NetDrop, NetDelay, NetPartition, NetClog:
		return len(d.sys.Tasks) > 0
	case CrashHost, PauseHost:
		return len(d.plan.Crashable) > 0
	case NetBreak, DataDrop, DataDuplicate, DataReorder:
		return len(d.sys.Channels) > 0
	case ExternalTimeout, ExternalCommitFail:
		return d.sys.ExternalStore
	case ClockSkew:
		return len(d.sys.Hosts) > 0
	}
	return true
}

// drawSchedule places each kind's injections at exponential gaps through the fault phase
// (a Poisson process at the plan's rate), each kind capped at its share of the budget, then
// orders all entries by time and keeps the first MaxFaults.
//
// The gaps come from a sim stream that one draw of r seeds per kind, not from r's
// ExpFloat64: that calls math.Exp and math.Log, which are assembly on some architectures and
// Go on others and may differ in the last bit, and a swarm must draw the same schedule on
// every machine. sim's exponential uses only correctly rounded arithmetic, and the times add
// up in whole nanoseconds.
func (d *drawer) drawSchedule() Schedule {
	type timed struct {
		atNanos int64
		entry   Entry
	}
	var all []timed
	phase := d.sys.FaultPhase
	share := 0
	if n := len(d.plan.Kinds); n > 0 {
		share = max(1, d.budget.MaxFaults/n)
	}
	for _, rate := range d.plan.Kinds {
		gaps := sim.NewRand(d.r.Uint64(), "faults/swarm/"+string(rate.Kind))
		meanGap := time.Duration(1e9 / rate.PerSecond) // at most twice the phase: no overflow
		at := int64(gaps.Exponential(meanGap))
		for count := 0; at < phase.Nanos() && count < share; count++ {
			all = append(all, timed{at, d.entry(rate, at)})
			at += int64(gaps.Exponential(meanGap)) // at most 37 mean gaps: no overflow
		}
	}
	slices.SortStableFunc(all, func(a, b timed) int { return cmp.Compare(a.atNanos, b.atNanos) })
	var s Schedule
	for _, t := range all[:min(len(all), d.budget.MaxFaults)] {
		s.Entries = append(s.Entries, t.entry)
	}
	return s
}

// entry draws one fault of the rate's kind starting at atNanos.
func (d *drawer) entry(rate KindRate, atNanos int64) Entry {
	f := Fault{Kind: rate.Kind, Probability: rate.Probability}
	trigger := At(Duration(atNanos))
	switch rate.Kind {
	case CrashTask:
		f.Task = d.pick(d.sys.Tasks)
		if d.plan.EventTriggers {
			kind := d.pick([]string{trace.KindBarrierRecv, trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindNotifyComplete})
			trigger = Nth(1+d.r.IntN(5), Match{Kind: kind, Task: f.Task})
		}
	case CrashCoordinator:
		if d.plan.EventTriggers {
			kind := d.pick([]string{trace.KindCheckpointTrigger, trace.KindCheckpointComplete})
			trigger = Nth(1+d.r.IntN(3), Match{Kind: kind, Task: Coordinator})
		}
	case CrashHost, PauseHost:
		f.Host = d.pick(d.plan.Crashable)
	case ClockSkew:
		f.Host = d.pick(d.sys.Hosts)
		f.SkewPPM = d.between(1, 200_000)
		if d.r.IntN(2) == 0 {
			f.SkewPPM = -f.SkewPPM
		}
	case RestartDelay, NetDelay, StorageSlow:
		f.Delay = Duration(d.between(1, d.budget.MaxWindow.Nanos()))
	case ExternalTimeout:
		f.Timeout = Duration(d.between(max(1, d.budget.MaxWindow.Nanos()/4), d.budget.MaxWindow.Nanos()))
	}
	switch rate.Kind {
	case NetDrop:
		f.Message = allMessages[d.r.IntN(len(allMessages))]
		if d.r.IntN(2) == 0 {
			f.From, f.To = d.dropLink(f.Message)
		}
	case NetBreak:
		f.From, f.To = d.channel()
	case NetDelay, NetPartition, NetClog:
		f.From, f.To = d.anyLink()
		f.OneWay = rate.Kind == NetPartition && d.r.IntN(2) == 0
	case DataDrop, DataDuplicate, DataReorder:
		if d.r.IntN(2) == 0 {
			f.From, f.To = d.channel()
		}
	case StorageFail, StorageSlow, StorageTorn, StorageCorrupt, StorageUnavailable, StorageLost:
		if len(d.sys.Stores) > 0 && d.r.IntN(2) == 0 {
			f.Store = d.pick(d.sys.Stores)
		}
	}
	if rate.Kind.Windowed() {
		// Ends inside the fault phase, so heal finds nothing it has to cut short.
		limit := min(d.budget.MaxWindow.Nanos(), d.sys.FaultPhase.Nanos()-atNanos)
		f.Window = Duration(d.between(max(1, limit/8), limit))
	}
	return Entry{Trigger: trigger, Fault: f}
}

func (d *drawer) pick(list []string) string { return list[d.r.IntN(len(list))] }

// between draws uniformly from [lo, hi].
func (d *drawer) between(lo, hi int64) int64 {
	if lo > hi {
		panic(fmt.Sprintf("faults: empty range [%d, %d]", lo, hi))
	}
	return lo + d.r.Int64N(hi-lo+1)
}

func (d *drawer) channel() (from, to string) {
	c := d.sys.Channels[d.r.IntN(len(d.sys.Channels))]
	return c.From, c.To
}

func (d *drawer) anyLink() (from, to string) {
	links := append(slices.Clone(d.sys.Channels), d.sys.ControlLinks()...)
	l := links[d.r.IntN(len(links))]
	return l.From, l.To
}

// dropLink draws a link that carries messages of class m: barriers travel on data channels,
// triggers and notifications from the coordinator, acknowledgements to it. With no data
// channel, barriers are dropped everywhere.
func (d *drawer) dropLink(m Message) (from, to string) {
	switch m {
	case MessageBarrier:
		if len(d.sys.Channels) == 0 {
			return "", ""
		}
		return d.channel()
	case MessageAck:
		return d.pick(d.sys.Tasks), Coordinator
	}
	return Coordinator, d.pick(d.sys.Tasks)
}
