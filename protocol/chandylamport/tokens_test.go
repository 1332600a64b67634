package chandylamport

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"pgregory.net/rapid"
)

// The token workload: every process holds a balance of tokens and sends some of it to a
// neighbour now and then. No tokens are made or destroyed, so every consistent global state
// holds the same total: the recorded balances plus the tokens recorded in flight.

// transfer is the workload's application message. ID makes every message distinguishable,
// so that the cut check can compare recorded channel states message by message.
type transfer struct {
	ID     int
	Amount int
}

func (t transfer) String() string { return fmt.Sprintf("t%d:%d", t.ID, t.Amount) }

// chooser is where a token run gets its decisions: rapid draws (which shrink) in the
// property test, a seeded math/rand/v2 source in the negative controls.
type chooser interface {
	intn(n int, label string) int
}

type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) intn(n int, label string) int { return rapid.IntRange(0, n-1).Draw(c.t, label) }

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int, _ string) int { return c.r.IntN(n) }

// hostFault is a way for the token host to break its obligations, for the negative controls.
type hostFault int

const (
	faithful hostFault = iota
	// forgetReceives: the host never tells the process about consumed messages, so no
	// channel state is ever recorded.
	forgetReceives
	// lateMarkers: the host holds every marker back until the sender's next message on that
	// channel has been sent, so a message sent after recording overtakes the marker.
	lateMarkers
)

// queuedItem is one item on a channel of the token world.
type queuedItem struct {
	marker   *Marker
	transfer transfer
}

// cut is what the host saw at each recording of one snapshot: how many transfers the sender
// had sent on each outgoing channel and the receiver had consumed on each incoming one.
type cut struct {
	sentAt map[Channel]int
	recvAt map[Channel]int
}

// tokenWorld runs the token workload over processes, a reference for each, FIFO channels and
// a collector: it is the host, doing what the package documentation asks (or, with a fault,
// not quite).
type tokenWorld struct {
	choose    chooser
	fault     hostFault
	graph     *Graph
	names     []ProcessID
	processes map[ProcessID]*Process[int, transfer]
	refs      map[ProcessID]*refProcess[int, transfer]
	collector *Collector[int, transfer]

	balance      map[ProcessID]int
	total        int
	queues       map[Channel][]queuedItem
	held         map[Channel][]Marker // lateMarkers only
	sent         map[Channel][]transfer
	consumed     map[Channel]int
	nextTransfer int
	draining     bool // the liveness phase: no more sends

	cuts       map[SnapshotID]*cut
	completed  []GlobalSnapshot[int, transfer]
	reports    map[string]Report[int, transfer] // by snapshot and process, from the real processes
	refReports map[string]Report[int, transfer] // same, from the references
	aborted    map[string]bool
	log        []string // every output, rendered: two runs of one seed must log alike
}

// newTokenWorld draws a graph (any directed graph without self-loops, up to 5 processes),
// the balances and the limits.
func newTokenWorld(choose chooser, fault hostFault) (*tokenWorld, error) {
	w := &tokenWorld{
		choose: choose, fault: fault,
		processes: map[ProcessID]*Process[int, transfer]{}, refs: map[ProcessID]*refProcess[int, transfer]{},
		balance: map[ProcessID]int{}, queues: map[Channel][]queuedItem{}, held: map[Channel][]Marker{},
		sent: map[Channel][]transfer{}, consumed: map[Channel]int{}, cuts: map[SnapshotID]*cut{},
		reports: map[string]Report[int, transfer]{}, refReports: map[string]Report[int, transfer]{}, aborted: map[string]bool{},
	}
	n := 1 + choose.intn(5, "processes")
	for i := range n {
		w.names = append(w.names, ProcessID(fmt.Sprintf("p%d", i)))
	}
	var channels []Channel
	for _, from := range w.names {
		for _, to := range w.names {
			if from != to && choose.intn(3, "channel "+string(from)+"->"+string(to)) == 0 {
				channels = append(channels, Channel{From: from, To: to})
			}
		}
	}
	g, err := NewGraph(w.names, channels)
	if err != nil {
		return nil, err
	}
	w.graph = g
	// The sizing rule of Config.MaxConcurrent: processes can track as many snapshots as the
	// collector lets be in flight.
	limit := 1 + choose.intn(3, "max concurrent")
	maxRecorded := []int{1, 2, 3, 1000}[choose.intn(4, "max recorded")]
	for _, p := range w.names {
		cfg := Config{ID: p, Inputs: g.Inputs(p), Outputs: g.Outputs(p), MaxConcurrent: limit, MaxRecordedPerChannel: maxRecorded}
		proc, err := NewProcess[int, transfer](cfg)
		if err != nil {
			return nil, err
		}
		w.processes[p] = proc
		w.refs[p] = newRefProcess[int, transfer](p, g.Inputs(p))
		w.balance[p] = choose.intn(10, "balance "+string(p))
		w.total += w.balance[p]
	}
	w.collector, err = NewCollector[int, transfer](g, limit)
	return w, err
}

// run plays steps random actions (the safety phase), then delivers everything left without
// sending more (the liveness phase, after which every snapshot must have finished).
func (w *tokenWorld) run(steps int) error {
	for range steps {
		var err error
		switch k := w.choose.intn(8, "action"); {
		case k < 3:
			w.send()
		case k < 7:
			err = w.deliver()
		default:
			err = w.initiate()
		}
		if err != nil {
			return err
		}
	}
	// Even a late host sends its held markers once it has nothing else to send.
	w.draining = true
	for _, c := range w.graph.Channels() {
		w.queues[c] = append(w.queues[c], markerItems(w.held[c])...)
		delete(w.held, c)
	}
	for bound := 0; ; bound++ {
		if bound > 100000 {
			return fmt.Errorf("the liveness phase did not drain the channels")
		}
		if w.inFlight() == 0 {
			break
		}
		if err := w.deliver(); err != nil {
			return err
		}
	}
	for _, p := range w.names {
		if ids := w.processes[p].Snapshots(); len(ids) > 0 {
			return fmt.Errorf("after the liveness phase %s still tracks %v", p, ids)
		}
	}
	if ids := w.collector.Pending(); len(ids) > 0 {
		return fmt.Errorf("after the liveness phase the collector still holds %v", ids)
	}
	return nil
}

func markerItems(ms []Marker) []queuedItem {
	items := make([]queuedItem, len(ms))
	for i := range ms {
		items[i] = queuedItem{marker: &ms[i]}
	}
	return items
}

func (w *tokenWorld) inFlight() int {
	n := 0
	for _, c := range w.graph.Channels() {
		n += len(w.queues[c])
	}
	return n
}

// send moves some tokens of a process that has any onto one of its outgoing channels.
func (w *tokenWorld) send() {
	var senders []ProcessID
	for _, p := range w.names {
		if w.balance[p] > 0 && len(w.graph.Outputs(p)) > 0 {
			senders = append(senders, p)
		}
	}
	if len(senders) == 0 {
		return
	}
	from := senders[w.choose.intn(len(senders), "sender")]
	outputs := w.graph.Outputs(from)
	c := Channel{From: from, To: outputs[w.choose.intn(len(outputs), "receiver")]}
	t := transfer{ID: w.nextTransfer, Amount: 1 + w.choose.intn(w.balance[from], "amount")}
	w.nextTransfer++
	w.balance[from] -= t.Amount
	w.sent[c] = append(w.sent[c], t)
	w.queues[c] = append(w.queues[c], queuedItem{transfer: t})
	if w.fault == lateMarkers {
		w.queues[c] = append(w.queues[c], markerItems(w.held[c])...)
		delete(w.held, c)
	}
}

// deliver hands the head of a non-empty channel to its receiver.
func (w *tokenWorld) deliver() error {
	var busy []Channel
	for _, c := range w.graph.Channels() {
		if len(w.queues[c]) > 0 {
			busy = append(busy, c)
		}
	}
	if len(busy) == 0 {
		return nil
	}
	c := busy[w.choose.intn(len(busy), "channel")]
	item := w.queues[c][0]
	w.queues[c] = w.queues[c][1:]
	p := w.processes[c.To]
	if item.marker != nil {
		if err := p.HandleMarker(*item.marker); err != nil {
			return err
		}
		if r := w.refs[c.To].marker(c.From, item.marker.Snapshot, w.balance[c.To]); r != nil {
			w.refReports[reportKey(r.Snapshot, r.Process)] = *r
		}
		return w.carryOut(p)
	}
	w.balance[c.To] += item.transfer.Amount
	w.consumed[c]++
	if w.fault == forgetReceives {
		return nil
	}
	w.refs[c.To].receive(c.From, item.transfer)
	return p.Receive(c.From, item.transfer)
}

// initiate starts a snapshot at a random process, with its joiners, if the collector has room.
func (w *tokenWorld) initiate() error {
	origin := w.names[w.choose.intn(len(w.names), "origin")]
	if w.collector.Full() {
		return nil
	}
	p := w.processes[origin]
	id, err := p.Initiate()
	if err != nil {
		return fmt.Errorf("initiate at %s with room at the collector: %w", origin, err)
	}
	if err := w.collector.Start(id); err != nil {
		return err
	}
	w.cuts[id] = &cut{sentAt: map[Channel]int{}, recvAt: map[Channel]int{}}
	if r := w.refs[origin].record(id, w.balance[origin]); r != nil {
		w.refReports[reportKey(r.Snapshot, r.Process)] = *r
	}
	if err := w.carryOut(p); err != nil {
		return err
	}
	for _, j := range w.graph.Joiners(origin) {
		if err := w.processes[j].Join(id); err != nil {
			return err
		}
		if r := w.refs[j].record(id, w.balance[j]); r != nil {
			w.refReports[reportKey(r.Snapshot, r.Process)] = *r
		}
		if err := w.carryOut(w.processes[j]); err != nil {
			return err
		}
	}
	return nil
}

// carryOut performs p's outputs in order, until p has no more: answering RecordState can
// produce a Report.
func (w *tokenWorld) carryOut(p *Process[int, transfer]) error {
	for {
		outputs := p.Ready()
		if len(outputs) == 0 {
			return nil
		}
		for _, o := range outputs {
			w.log = append(w.log, o.String())
			switch o := o.(type) {
			case RecordState:
				w.recordCut(o)
				if err := p.StateRecorded(o.Snapshot, w.balance[o.Process]); err != nil {
					return err
				}
			case Marker:
				if w.fault == lateMarkers && !w.draining {
					w.held[o.Channel] = append(w.held[o.Channel], o)
				} else {
					w.queues[o.Channel] = append(w.queues[o.Channel], queuedItem{marker: &o})
				}
			case Report[int, transfer]:
				w.reports[reportKey(o.Snapshot, o.Process)] = o
				g, complete, err := w.collector.AddReport(o)
				if err != nil {
					return err
				}
				if complete {
					w.completed = append(w.completed, g)
					w.log = append(w.log, "complete "+g.String())
				}
			case Abort:
				w.aborted[reportKey(o.Snapshot, o.Process)] = true
				if err := w.collector.AddAbort(o); err != nil {
					return err
				}
			default:
				return fmt.Errorf("unexpected output %T", o)
			}
		}
	}
}

// recordCut notes, at the moment a process records, how far each of its channels has got.
func (w *tokenWorld) recordCut(r RecordState) {
	cut := w.cuts[r.Snapshot]
	for _, to := range w.graph.Outputs(r.Process) {
		c := Channel{From: r.Process, To: to}
		cut.sentAt[c] = len(w.sent[c])
	}
	for _, from := range w.graph.Inputs(r.Process) {
		c := Channel{From: from, To: r.Process}
		cut.recvAt[c] = w.consumed[c]
	}
}

func reportKey(id SnapshotID, p ProcessID) string { return id.String() + " " + string(p) }

func (w *tokenWorld) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph %v, total %d tokens\n", w.graph.Channels(), w.total)
	for _, line := range w.log {
		b.WriteString(line + "\n")
	}
	return b.String()
}
