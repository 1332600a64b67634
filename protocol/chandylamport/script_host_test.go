package chandylamport

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// run executes one input line.
func (h *scriptHost) run(args []string) {
	if len(args) == 0 {
		h.printf("bad input: empty")
		return
	}
	if args[0] != "graph" && h.graph == nil {
		h.printf("bad input: the script must start with graph")
		return
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "graph":
		err = h.cmdGraph(rest)
	case "initiate":
		err = h.cmdInitiate(rest)
	case "join":
		err = h.cmdJoin(rest)
	case "state":
		err = h.cmdState(rest)
	case "send":
		err = h.cmdSend(rest)
	case "deliver":
		err = h.cmdDeliver(rest)
	case "marker":
		err = h.cmdMarker(rest)
	case "recv":
		err = h.cmdRecv(rest)
	case "joiners":
		err = h.cmdJoiners(rest)
	case "show":
		h.cmdShow()
	default:
		h.printf("bad input: unknown command %q", cmd)
	}
	if err != nil {
		h.printf("error: %v", err)
	}
}

// cmdGraph: graph [max-concurrent=N] [max-recorded=N] [collector-max=N] a->b ... [isolated]
func (h *scriptHost) cmdGraph(args []string) error {
	var cfg Config
	collectorMax := 0
	var processes []ProcessID
	var channels []Channel
	seen := map[ProcessID]bool{}
	addProcess := func(p ProcessID) {
		if !seen[p] {
			seen[p] = true
			processes = append(processes, p)
		}
	}
	for _, a := range args {
		if key, value, ok := strings.Cut(a, "="); ok {
			n, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("bad option %s", a)
			}
			switch key {
			case "max-concurrent":
				cfg.MaxConcurrent = n
			case "max-recorded":
				cfg.MaxRecordedPerChannel = n
			case "collector-max":
				collectorMax = n
			default:
				return fmt.Errorf("unknown option %s", key)
			}
			continue
		}
		if c, ok := parseChannel(a); ok {
			channels = append(channels, c)
			addProcess(c.From)
			addProcess(c.To)
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
		c := cfg
		c.ID, c.Inputs, c.Outputs = p, g.Inputs(p), g.Outputs(p)
		proc, err := NewProcess[string, string](c)
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
func (h *scriptHost) cmdInitiate(args []string) error {
	p, err := h.process(args, 1)
	if err != nil {
		return err
	}
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
func (h *scriptHost) cmdJoin(args []string) error {
	p, err := h.process(args, 2)
	if err != nil {
		return err
	}
	id, err := parseSnapshotID(args[1])
	if err != nil {
		return err
	}
	if err := p.Join(id); err != nil {
		return err
	}
	h.carryOut(p)
	return nil
}

// cmdState: state P ID VALUE answers a RecordState.
func (h *scriptHost) cmdState(args []string) error {
	p, err := h.process(args, 3)
	if err != nil {
		return err
	}
	id, err := parseSnapshotID(args[1])
	if err != nil {
		return err
	}
	if err := p.StateRecorded(id, args[2]); err != nil {
		return err
	}
	h.carryOut(p)
	return nil
}

// cmdSend: send A->B MSG puts an application message on the channel.
func (h *scriptHost) cmdSend(args []string) error {
	c, err := h.channel(args, 2)
	if err != nil {
		return err
	}
	h.queues[c] = append(h.queues[c], queued{message: args[1]})
	h.printf("queued %s on %s", args[1], c)
	return nil
}

// cmdDeliver: deliver A->B [N] hands the first N items of the channel to its receiver.
func (h *scriptHost) cmdDeliver(args []string) error {
	if len(args) == 1 {
		args = append(args, "1")
	}
	c, err := h.channel(args, 2)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("bad count %q", args[1])
	}
	for range n {
		if len(h.queues[c]) == 0 {
			return fmt.Errorf("%s is empty", c)
		}
		item := h.queues[c][0]
		if item.marker != nil {
			h.printf("deliver %s", item)
		} else {
			h.printf("deliver %s on %s", item, c)
		}
		if err := h.hand(c, item); err != nil {
			// A refused item stays at the head of its channel, as a real host would keep it.
			return err
		}
		h.queues[c] = h.queues[c][1:]
	}
	return nil
}

// cmdMarker: marker A->B ID hands a marker to B directly, bypassing the channel's queue.
func (h *scriptHost) cmdMarker(args []string) error {
	c, err := h.channel(args, 2)
	if err != nil {
		return err
	}
	id, err := parseSnapshotID(args[1])
	if err != nil {
		return err
	}
	return h.hand(c, queued{marker: &Marker{Snapshot: id, Channel: c}})
}

// cmdRecv: recv A->B MSG hands a message to B directly, bypassing the channel's queue.
func (h *scriptHost) cmdRecv(args []string) error {
	c, err := h.channel(args, 2)
	if err != nil {
		return err
	}
	return h.hand(c, queued{message: args[1]})
}

// cmdJoiners: joiners P prints Graph.Joiners(P).
func (h *scriptHost) cmdJoiners(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want 1 argument, got %d", len(args))
	}
	h.printf("joiners of %s: %v", args[0], h.graph.Joiners(ProcessID(args[0])))
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
	for _, c := range h.graph.Channels() {
		if q := h.queues[c]; len(q) > 0 {
			h.printf("channel %s: %v", c, q)
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

// hand gives one item of channel c to c's receiver and carries out the outputs.
func (h *scriptHost) hand(c Channel, item queued) error {
	p, ok := h.processes[c.To]
	if !ok {
		return fmt.Errorf("no process %s", c.To)
	}
	var err error
	if item.marker != nil {
		err = p.HandleMarker(*item.marker)
	} else {
		err = p.Receive(c.From, item.message)
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

// process returns the process named by args[0], after checking the argument count.
func (h *scriptHost) process(args []string, want int) (*Process[string, string], error) {
	if len(args) != want {
		return nil, fmt.Errorf("want %d arguments, got %d", want, len(args))
	}
	p, ok := h.processes[ProcessID(args[0])]
	if !ok {
		return nil, fmt.Errorf("no process %s", args[0])
	}
	return p, nil
}

// channel parses args[0] as a channel, after checking the argument count. The channel need
// not be in the graph, so that scripts can hand processes bogus input.
func (h *scriptHost) channel(args []string, want int) (Channel, error) {
	if len(args) != want {
		return Channel{}, fmt.Errorf("want %d arguments, got %d", want, len(args))
	}
	c, ok := parseChannel(args[0])
	if !ok {
		return Channel{}, fmt.Errorf("bad channel %q", args[0])
	}
	return c, nil
}

func parseChannel(s string) (Channel, bool) {
	from, to, ok := strings.Cut(s, "->")
	if !ok {
		return Channel{}, false
	}
	return Channel{From: ProcessID(from), To: ProcessID(to)}, true
}

func parseSnapshotID(s string) (SnapshotID, error) {
	origin, seq, ok := strings.Cut(s, "#")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		return SnapshotID{}, errors.New("bad snapshot id " + strconv.Quote(s))
	}
	return SnapshotID{Origin: ProcessID(origin), Seq: n}, nil
}
