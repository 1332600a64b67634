package chandylamport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol/internal/scripttest"
)

// queued is one item on a scripted channel: a marker or an application message.
type queued struct {
	marker  *Marker
	message string
}

func (q queued) String() string {
	if q.marker != nil {
		return q.marker.String()
	}
	return q.message
}

// scriptHost is the host the scripts drive: it owns the channels (FIFO queues), carries out
// every output at once except RecordState, which the script answers with "state", and feeds
// reports and aborts to a collector. States and messages are plain words.
type scriptHost struct {
	out       *strings.Builder
	graph     *Graph
	processes map[ProcessID]*Process[string, string]
	queues    map[Channel][]queued
	collector *Collector[string, string]
}

func (h *scriptHost) printf(format string, args ...any) {
	fmt.Fprintf(h.out, format+"\n", args...)
}

// commands is the host's command table (testdata/README.md lists them).
// Each command's output is what it printed. Mistakes in the script (a
// wrong argument count, a bad channel or snapshot id, a process that does
// not exist) fail the test through Fatalf; errors the package returns are
// output, "error: ...".
func (h *scriptHost) commands() scripttest.Commands {
	table := map[string]func(c *scripttest.Command) error{
		"graph":    h.cmdGraph,
		"initiate": h.cmdInitiate,
		"join":     h.cmdJoin,
		"state":    h.cmdState,
		"send":     h.cmdSend,
		"deliver":  h.cmdDeliver,
		"marker":   h.cmdMarker,
		"recv":     h.cmdRecv,
		"joiners":  h.cmdJoiners,
		"show":     func(c *scripttest.Command) error { h.cmdShow(); return nil },
	}
	cmds := scripttest.Commands{}
	for name, f := range table {
		cmds[name] = func(c *scripttest.Command) []string {
			if name != "graph" && h.graph == nil {
				c.Fatalf("the script must start with graph")
			}
			h.out.Reset()
			if err := f(c); err != nil {
				h.printf("error: %v", err)
			}
			if h.out.Len() == 0 {
				return nil
			}
			return strings.Split(strings.TrimSuffix(h.out.String(), "\n"), "\n")
		}
	}
	return cmds
}

// cmdGraph: graph [max-concurrent=N] [max-recorded=N] [collector-max=N] a->b ... [isolated]
func (h *scriptHost) cmdGraph(c *scripttest.Command) error {
	cfg := Config{
		MaxConcurrent:         int(c.Int("max-concurrent", 0)),
		MaxRecordedPerChannel: int(c.Int("max-recorded", 0)),
	}
	collectorMax := int(c.Int("collector-max", 0))
	var processes []ProcessID
	var channels []Channel
	seen := map[ProcessID]bool{}
	addProcess := func(p ProcessID) {
		if !seen[p] {
			seen[p] = true
			processes = append(processes, p)
		}
	}
	for _, a := range c.Args() {
		if ch, ok := parseChannel(a); ok {
			channels = append(channels, ch)
			addProcess(ch.From)
			addProcess(ch.To)
			continue
		}
		addProcess(ProcessID(a))
	}
	g, err := NewGraph(processes, channels)
	if err != nil {
		return err
	}
	h.graph = g
	h.processes = map[ProcessID]*Process[string, string]{}
	h.queues = map[Channel][]queued{}
	for _, p := range g.Processes() {
		pc := cfg
		pc.ID, pc.Inputs, pc.Outputs = p, g.Inputs(p), g.Outputs(p)
		proc, err := NewProcess[string, string](pc)
		if err != nil {
			return err
		}
		h.processes[p] = proc
	}
	h.collector, err = NewCollector[string, string](g, collectorMax)
	if err != nil {
		return err
	}
	h.printf("ok: %d processes, %d channels", len(g.Processes()), len(g.Channels()))
	return nil
}

// cmdInitiate: initiate P. The snapshot is started at the collector too.
func (h *scriptHost) cmdInitiate(c *scripttest.Command) error {
	p := h.process(c, 1)
	id, err := p.Initiate()
	if err != nil {
		return err
	}
	h.printf("initiated %s", id)
	if err := h.collector.Start(id); err != nil {
		h.printf("collector: error: %v", err)
	}
	h.carryOut(p)
	return nil
}

// cmdJoin: join P ID
func (h *scriptHost) cmdJoin(c *scripttest.Command) error {
	p := h.process(c, 2)
	if err := p.Join(snapshotID(c, c.Arg(1))); err != nil {
		return err
	}
	h.carryOut(p)
	return nil
}

// cmdState: state P ID VALUE answers a RecordState.
func (h *scriptHost) cmdState(c *scripttest.Command) error {
	p := h.process(c, 3)
	if err := p.StateRecorded(snapshotID(c, c.Arg(1)), c.Arg(2)); err != nil {
		return err
	}
	h.carryOut(p)
	return nil
}

// cmdSend: send A->B MSG puts an application message on the channel.
func (h *scriptHost) cmdSend(c *scripttest.Command) error {
	ch := h.channel(c, 2)
	h.queues[ch] = append(h.queues[ch], queued{message: c.Arg(1)})
	h.printf("queued %s on %s", c.Arg(1), ch)
	return nil
}

// cmdDeliver: deliver A->B [N] hands the first N items of the channel to its receiver.
func (h *scriptHost) cmdDeliver(c *scripttest.Command) error {
	n := int64(1)
	if c.NArgs() == 2 {
		n = c.ParseInt("count", c.Arg(1))
	}
	ch := h.channel(c, c.NArgs())
	for range n {
		if len(h.queues[ch]) == 0 {
			c.Fatalf("%s is empty", ch)
		}
		item := h.queues[ch][0]
		if item.marker != nil {
			h.printf("deliver %s", item)
		} else {
			h.printf("deliver %s on %s", item, ch)
		}
		if err := h.hand(c, ch, item); err != nil {
			// A refused item stays at the head of its channel, as a real host would keep it.
			return err
		}
		h.queues[ch] = h.queues[ch][1:]
	}
	return nil
}

// cmdMarker: marker A->B ID hands a marker to B directly, bypassing the channel's queue.
func (h *scriptHost) cmdMarker(c *scripttest.Command) error {
	ch := h.channel(c, 2)
	return h.hand(c, ch, queued{marker: &Marker{Snapshot: snapshotID(c, c.Arg(1)), Channel: ch}})
}

// cmdRecv: recv A->B MSG hands a message to B directly, bypassing the channel's queue.
func (h *scriptHost) cmdRecv(c *scripttest.Command) error {
	ch := h.channel(c, 2)
	return h.hand(c, ch, queued{message: c.Arg(1)})
}

// cmdJoiners: joiners P prints Graph.Joiners(P).
func (h *scriptHost) cmdJoiners(c *scripttest.Command) error {
	p := ProcessID(c.ArgsExactly(1)[0])
	h.printf("joiners of %s: %v", p, h.graph.Joiners(p))
	return nil
}

// cmdShow prints what is in flight and tracked: channel queues, live snapshots per process,
// the collector's snapshots.
func (h *scriptHost) cmdShow() {
	shown := false
	defer func() {
		if !shown {
			h.printf("nothing in flight or tracked")
		}
	}()
	for _, ch := range h.graph.Channels() {
		if q := h.queues[ch]; len(q) > 0 {
			h.printf("channel %s: %v", ch, q)
			shown = true
		}
	}
	for _, p := range h.graph.Processes() {
		if ids := h.processes[p].Snapshots(); len(ids) > 0 {
			h.printf("process %s tracks %v", p, ids)
			shown = true
		}
	}
	for _, id := range h.collector.Pending() {
		h.printf("collector holds %s: %s", id, h.collector.Status(id))
		shown = true
	}
}

// hand gives one item of channel ch to ch's receiver and carries out the outputs.
func (h *scriptHost) hand(c *scripttest.Command, ch Channel, item queued) error {
	p, ok := h.processes[ch.To]
	if !ok {
		c.Fatalf("no process %s", ch.To)
	}
	var err error
	if item.marker != nil {
		err = p.HandleMarker(*item.marker)
	} else {
		err = p.Receive(ch.From, item.message)
	}
	h.carryOut(p)
	return err
}

// carryOut renders and performs p's outputs: markers go on their channels, reports and aborts
// to the collector. RecordState waits for the script's "state" input.
func (h *scriptHost) carryOut(p *Process[string, string]) {
	for _, o := range p.Ready() {
		h.printf("%s", o)
		switch o := o.(type) {
		case Marker:
			h.queues[o.Channel] = append(h.queues[o.Channel], queued{marker: &o})
		case RecordState:
		case Report[string, string]:
			g, complete, err := h.collector.AddReport(o)
			switch {
			case err != nil:
				h.printf("collector: error: %v", err)
			case complete:
				h.printf("collector: complete %s", g)
			case h.collector.Status(o.Snapshot) == StatusUnknown:
				h.printf("collector: every process answered aborted %s; forgotten", o.Snapshot)
			}
		case Abort:
			switch err := h.collector.AddAbort(o); {
			case err != nil:
				h.printf("collector: error: %v", err)
			case h.collector.Status(o.Snapshot) == StatusUnknown:
				h.printf("collector: every process answered aborted %s; forgotten", o.Snapshot)
			default:
				h.printf("collector: %s is %s", o.Snapshot, h.collector.Status(o.Snapshot))
			}
		default:
			panic(fmt.Sprintf("unexpected output %T", o))
		}
	}
}

// process returns the process named by the first argument, after checking that the command
// has want arguments.
func (h *scriptHost) process(c *scripttest.Command, want int) *Process[string, string] {
	name := c.ArgsExactly(want)[0]
	p, ok := h.processes[ProcessID(name)]
	if !ok {
		c.Fatalf("no process %s", name)
	}
	return p
}

// channel parses the first argument as a channel, after checking that the command has want
// arguments. The channel need not be in the graph, so that scripts can hand processes bogus
// input.
func (h *scriptHost) channel(c *scripttest.Command, want int) Channel {
	name := c.ArgsExactly(want)[0]
	ch, ok := parseChannel(name)
	if !ok {
		c.Fatalf("bad channel %q", name)
	}
	return ch
}

func parseChannel(s string) (Channel, bool) {
	from, to, ok := strings.Cut(s, "->")
	if !ok {
		return Channel{}, false
	}
	return Channel{From: ProcessID(from), To: ProcessID(to)}, true
}

// snapshotID parses s as ORIGIN#SEQ.
func snapshotID(c *scripttest.Command, s string) SnapshotID {
	origin, seq, ok := strings.Cut(s, "#")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		c.Fatalf("bad snapshot id %q", s)
	}
	return SnapshotID{Origin: ProcessID(origin), Seq: n}
}
