package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// genParams sizes a synthetic run: sources send records round-robin to transactional sinks,
// checkpoints are aligned, and in the fault phase checkpoints abort, notifications drop, the
// job fails over and the coordinator crashes. The run is correct by construction, so every
// property must pass on it; mutations of it must not.
type genParams struct {
	sources, sinks   int
	recordsPerSource int
	pCheckpoint      float64 // per step
	pAbort           float64 // per checkpoint, fault phase only
	pDropNotify      float64 // per notification, fault phase only
	pFailover        float64 // per step, fault phase only
	pCoordCrash      float64 // per step, fault phase only
	pRead            float64 // per step
	healFraction     float64 // share of records emitted before heal
}

// pendingTxn is a sink transaction pre-committed at checkpoint cp and not yet committed.
type pendingTxn struct {
	cp  uint64
	txn string
}

// genState is the part of the job a checkpoint saves and a restore brings back.
type genState struct {
	offsets []int
	sent    [][]int64 // [source][sink]
	recv    [][]int64 // [sink][source]
	pending [][]pendingTxn
}

func (s genState) clone() genState {
	c := genState{offsets: slices.Clone(s.offsets)}
	for _, row := range s.sent {
		c.sent = append(c.sent, slices.Clone(row))
	}
	for _, row := range s.recv {
		c.recv = append(c.recv, slices.Clone(row))
	}
	for _, p := range s.pending {
		c.pending = append(c.pending, slices.Clone(p))
	}
	return c
}

type generator struct {
	rng    *rand.Rand
	p      genParams
	events []trace.Event
	t      int64

	state     genState
	saved     map[uint64]genState // completed checkpoints
	cp        uint64              // last id used
	latest    uint64              // latest completed
	txnSeq    int
	current   []string       // open transaction per sink
	txnSize   map[string]int // writes per transaction
	committed map[string]bool
	stored    int64 // records committed in the external store
	healed    bool
	// failures counts checkpoint failures in a row as the tolerable-failure rule does: the
	// generator aborts no more than genTolerableFailures in a row, since a correct job would
	// fail over on the next one.
	failures   int
	emitted    int   // distinct records emitted so far
	maxOffsets []int // per source, the furthest offset reached
}

// genTolerableFailures is the tolerable-failure limit of generated runs.
const genTolerableFailures = 3

func srcName(s int) string  { return "src-" + strconv.Itoa(s) }
func sinkName(k int) string { return "sink-" + strconv.Itoa(k) }

// generate returns a correct run and its reference.
func generate(rng *rand.Rand, p genParams) ([]trace.Event, Reference) {
	g := &generator{
		rng: rng, p: p,
		saved: make(map[uint64]genState), txnSize: make(map[string]int), committed: make(map[string]bool),
	}
	g.state = genState{offsets: make([]int, p.sources)}
	for range p.sources {
		g.state.sent = append(g.state.sent, make([]int64, p.sinks))
	}
	for range p.sinks {
		g.state.recv = append(g.state.recv, make([]int64, p.sources))
		g.state.pending = append(g.state.pending, nil)
		g.current = append(g.current, g.newTxn())
	}
	g.saved[0] = g.state.clone()
	g.emit(trace.Event{Kind: trace.KindCoordinatorRecover, Task: coord})
	for _, task := range g.tasks() {
		g.emit(trace.Event{Kind: trace.KindTaskRestore, Task: task})
	}
	g.emit(trace.Event{Kind: trace.KindPhase, Attrs: attrs("phase=fault")})
	total := p.sources * p.recordsPerSource
	healAt := int(float64(total) * p.healFraction)
	var healT, firstAfterHeal int64 = 0, -1
	for !g.drained() {
		if !g.healed && g.emitted >= healAt {
			g.healed = true
			healT = g.emit(trace.Event{Kind: trace.KindPhase, Attrs: attrs("phase=heal")}).T
		}
		switch x := g.rng.Float64(); {
		case x < p.pCheckpoint:
			if done := g.checkpoint(); done && g.healed && firstAfterHeal < 0 {
				firstAfterHeal = g.t
			}
		case !g.healed && x < p.pCheckpoint+p.pFailover:
			g.failover()
		case !g.healed && x < p.pCheckpoint+p.pFailover+p.pCoordCrash:
			g.emit(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coord})
			g.failures = 0
			g.emit(trace.Event{Kind: trace.KindCoordinatorRecover, Task: coord, CP: g.latest})
		case x < p.pCheckpoint+p.pFailover+p.pCoordCrash+p.pRead:
			g.read()
		default:
			g.record()
		}
	}
	if !g.healed {
		g.healed = true
		healT = g.emit(trace.Event{Kind: trace.KindPhase, Attrs: attrs("phase=heal")}).T
	}
	for !g.checkpoint() {
	}
	if firstAfterHeal < 0 {
		firstAfterHeal = g.t
	}
	for _, task := range g.tasks() {
		g.emit(trace.Event{Kind: trace.KindTaskFinish, Task: task})
	}
	g.emit(trace.Event{Kind: trace.KindPhase, Attrs: attrs("phase=end")})

	values := make(map[string]string, total)
	for s := range p.sources {
		for i := range p.recordsPerSource {
			rid := fmt.Sprintf("s%d-%d", s, i)
			values[rid] = "v" + rid
		}
	}
	ref := Reference{
		Guarantee: GuaranteeExactlyOnce,
		Output:    ExpectOnce(values),
		Liveness: LivenessBounds{
			CheckpointAfterHealNanos: firstAfterHeal - healT,
			AlignmentMaxNanos:        1000,
			NotifyMaxNanos:           1,
			FinishTasks:              g.tasks(),
		},
		Policy:    Policy{TolerableFailures: Tolerating(genTolerableFailures)},
		TraceHash: trace.HashEvents(g.events),
	}
	return g.events, ref
}

// drained reports whether every source has sent all its records in the current timeline.
func (g *generator) drained() bool {
	for _, off := range g.state.offsets {
		if off < g.p.recordsPerSource {
			return false
		}
	}
	return true
}

func (g *generator) tasks() []string {
	var tasks []string
	for s := range g.p.sources {
		tasks = append(tasks, srcName(s))
	}
	for k := range g.p.sinks {
		tasks = append(tasks, sinkName(k))
	}
	return tasks
}

func (g *generator) emit(e trace.Event) trace.Event {
	g.t += 1 + g.rng.Int64N(3)
	e.Seq = uint64(len(g.events))
	e.T = g.t
	g.events = append(g.events, e)
	return e
}

func (g *generator) newTxn() string {
	g.txnSeq++
	return "tx-" + strconv.Itoa(g.txnSeq)
}

func (g *generator) record() {
	s := g.rng.IntN(g.p.sources)
	for g.state.offsets[s] >= g.p.recordsPerSource {
		s = (s + 1) % g.p.sources
	}
	off := g.state.offsets[s]
	k := off % g.p.sinks
	rid := fmt.Sprintf("s%d-%d", s, off)
	g.emit(trace.Event{Kind: trace.KindSinkWrite, Task: sinkName(k), Txn: g.current[k], RID: rid,
		Attrs: attrs("value=v" + rid)})
	g.txnSize[g.current[k]]++
	g.state.offsets[s]++
	g.state.sent[s][k]++
	g.state.recv[k][s]++
	if g.state.offsets[s] > g.highWater(s) {
		g.emitted++
	}
}

// highWater is how far source s had got before any failover, so a replayed record is not
// counted twice towards the run's length.
func (g *generator) highWater(s int) int {
	if g.maxOffsets == nil {
		g.maxOffsets = make([]int, g.p.sources)
	}
	hw := g.maxOffsets[s]
	if g.state.offsets[s] > hw {
		g.maxOffsets[s] = g.state.offsets[s]
	}
	return hw
}

func sourceDigest(st genState, s int) string { return "off=" + strconv.Itoa(st.offsets[s]) }

func sinkDigest(st genState, k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "recv=%v", st.recv[k])
	for _, p := range st.pending[k] {
		fmt.Fprintf(&b, " %d:%s", p.cp, p.txn)
	}
	return b.String()
}

// checkpoint runs one checkpoint and reports whether it completed.
func (g *generator) checkpoint() bool {
	g.cp++
	cp := g.cp
	g.emit(trace.Event{Kind: trace.KindCheckpointTrigger, Task: coord, CP: cp})
	for s := range g.p.sources {
		g.emit(trace.Event{Kind: trace.KindTriggerRecv, Task: srcName(s), CP: cp})
		pairs := []string{"state=" + sourceDigest(g.state, s)}
		for k := range g.p.sinks {
			pairs = append(pairs, fmt.Sprintf("sent.%s=%d", sinkName(k), g.state.sent[s][k]))
		}
		g.emit(trace.Event{Kind: trace.KindSnapshotTaken, Task: srcName(s), CP: cp, Attrs: attrs(pairs...)})
		for k := range g.p.sinks {
			g.emit(trace.Event{Kind: trace.KindBarrierSend, Task: srcName(s), To: sinkName(k), CP: cp})
		}
	}
	abort := !g.healed && g.rng.Float64() < g.p.pAbort && g.failures < genTolerableFailures
	for k := range g.p.sinks {
		for s := range g.p.sources {
			g.emit(trace.Event{Kind: trace.KindBarrierRecv, Task: sinkName(k), From: srcName(s), CP: cp})
		}
		if abort {
			continue
		}
		txn := g.current[k]
		g.emit(trace.Event{Kind: trace.KindSinkPrecommit, Task: sinkName(k), CP: cp, Txn: txn})
		g.state.pending[k] = append(g.state.pending[k], pendingTxn{cp, txn})
		g.current[k] = g.newTxn()
		pairs := []string{"state=" + sinkDigest(g.state, k)}
		for s := range g.p.sources {
			pairs = append(pairs, fmt.Sprintf("recv.%s=%d", srcName(s), g.state.recv[k][s]))
		}
		g.emit(trace.Event{Kind: trace.KindSnapshotTaken, Task: sinkName(k), CP: cp, Attrs: attrs(pairs...)})
	}
	if abort {
		g.failures++
		g.emit(trace.Event{Kind: trace.KindCheckpointAbort, Task: coord, CP: cp, Reason: "declined"})
		for _, task := range g.tasks() {
			g.emit(trace.Event{Kind: trace.KindNotifyAbort, Task: task, CP: cp})
		}
		return false
	}
	for _, task := range g.tasks() {
		g.emit(trace.Event{Kind: trace.KindSnapshotAck, Task: task, CP: cp})
	}
	g.emit(trace.Event{Kind: trace.KindCheckpointPersist, Task: coord, CP: cp})
	if !g.healed && g.rng.Float64() < g.p.pCoordCrash {
		// The coordinator dies while writing; the write did not land.
		g.emit(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coord})
		g.failures = 0
		g.emit(trace.Event{Kind: trace.KindCoordinatorRecover, Task: coord, CP: g.latest})
		return false
	}
	g.emit(trace.Event{Kind: trace.KindCheckpointComplete, Task: coord, CP: cp})
	g.failures = 0
	g.saved[cp] = g.state.clone()
	g.latest = cp
	for s := range g.p.sources {
		g.notify(srcName(s), cp)
	}
	for k := range g.p.sinks {
		if g.notify(sinkName(k), cp) {
			g.commitPending(k, cp)
		}
	}
	return true
}

func (g *generator) notify(task string, cp uint64) bool {
	if !g.healed && g.rng.Float64() < g.p.pDropNotify {
		return false
	}
	g.emit(trace.Event{Kind: trace.KindNotifyComplete, Task: task, CP: cp})
	return true
}

// commitPending commits sink k's pre-committed transactions up to checkpoint upTo.
func (g *generator) commitPending(k int, upTo uint64) {
	var keep []pendingTxn
	for _, p := range g.state.pending[k] {
		if p.cp > upTo {
			keep = append(keep, p)
			continue
		}
		var records int
		if !g.committed[p.txn] {
			records = g.txnSize[p.txn]
			g.committed[p.txn] = true
			g.stored += int64(records)
		}
		g.emit(trace.Event{Kind: trace.KindSinkCommit, Task: sinkName(k), CP: p.cp, Txn: p.txn,
			Attrs: attrs("records="+strconv.Itoa(records), "start="+strconv.FormatInt(g.t+1, 10))})
	}
	g.state.pending[k] = keep
}

func (g *generator) failover() {
	g.emit(trace.Event{Kind: trace.KindJobFailover, Task: coord, CP: g.latest, Reason: "task failure"})
	g.failures = 0
	for _, task := range g.tasks() {
		g.emit(trace.Event{Kind: trace.KindTaskCrash, Task: task})
	}
	restored := g.saved[g.latest].clone()
	for k := range g.p.sinks {
		keep := make(map[string]bool)
		for _, p := range restored.pending[k] {
			keep[p.txn] = true
		}
		for _, p := range g.state.pending[k] {
			if !keep[p.txn] {
				g.emit(trace.Event{Kind: trace.KindSinkAbort, Task: sinkName(k), Txn: p.txn, Reason: "failover"})
			}
		}
		g.emit(trace.Event{Kind: trace.KindSinkAbort, Task: sinkName(k), Txn: g.current[k], Reason: "failover"})
	}
	g.state = restored
	for s := range g.p.sources {
		g.restore(srcName(s), sourceDigest(g.state, s))
	}
	for k := range g.p.sinks {
		g.restore(sinkName(k), sinkDigest(g.state, k))
		g.current[k] = g.newTxn()
		g.commitPending(k, g.latest)
	}
}

func (g *generator) restore(task, digest string) {
	var a []trace.Attr
	if g.latest != 0 {
		a = attrs("state=" + digest)
	}
	g.emit(trace.Event{Kind: trace.KindTaskRestore, Task: task, CP: g.latest, Attrs: a})
}

func (g *generator) read() {
	reader := "reader-" + strconv.Itoa(g.rng.IntN(2))
	g.emit(trace.Event{Kind: trace.KindSinkRead, Task: reader,
		Attrs: attrs("records="+strconv.FormatInt(g.stored, 10), "start="+strconv.FormatInt(g.t+1, 10))})
}

// smallRun is the parameter set of the property tests.
var smallRun = genParams{
	sources: 2, sinks: 2, recordsPerSource: 20,
	pCheckpoint: 0.15, pAbort: 0.2, pDropNotify: 0.2, pFailover: 0.03, pCoordCrash: 0.03, pRead: 0.1,
	healFraction: 0.6,
}
