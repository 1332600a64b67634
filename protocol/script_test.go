package protocol_test

// Scripted interaction tests: testdata/*.txt are scripts in the format of
// package scripttest, run against a world of one coordinator, its tasks, the
// network between them and durable storage. testdata/README.md lists the
// commands. Run `go test ./protocol -run TestScripts -rewrite` to regenerate
// the outputs after a deliberate change, and review the diff.

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/protocol/internal/scripttest"
)

func TestScripts(t *testing.T) {
	scripttest.Run(t, "testdata/*.txt", func() scripttest.Commands { return newWorld().commands() })
}

func TestScriptCommandsAreDocumented(t *testing.T) {
	scripttest.CheckDocumented(t, "testdata/README.md", newWorld().commands())
}

// world is the host of a script: one coordinator, any number of tasks, the
// messages and channel events in flight between them, a durable store that
// holds what the coordinator's confirmed writes put there, and the virtual
// clock.
type world struct {
	cfg   protocol.Config
	topo  protocol.Topology
	now   protocol.Time
	coord *protocol.Coordinator
	tasks map[protocol.TaskID]*protocol.Task
	net   network
	// durable storage
	counter      protocol.CheckpointID
	store        []protocol.CompletedCheckpoint
	counterWrite []protocol.CheckpointID
	metaWrites   []protocol.CompletedCheckpoint
}

func newWorld() *world {
	cfg := protocol.DefaultConfig()
	cfg.CheckInvariants = true
	cfg.Interval = 100
	cfg.Timeout = 1000
	cfg.MaxPendingCheckpoints = 4
	cfg.MaxBufferedRecords = 3
	cfg.TolerableFailures = 0
	cfg.JitterSeed = 1
	return &world{cfg: cfg, tasks: map[protocol.TaskID]*protocol.Task{}, net: newNetwork()}
}

// commands is the world's command table. Every command takes t=N, which
// moves the clock to N before the command runs.
func (w *world) commands() scripttest.Commands {
	cmds := scripttest.Commands{
		"config":            w.configure,
		"topology":          w.topology,
		"coordinator":       w.newCoordinator,
		"tick":              w.coordCall(func(c *scripttest.Command) error { w.coord.Tick(w.now); return nil }),
		"counter-ok":        w.coordCall(w.counterPersisted),
		"counter-fail":      w.coordCall(w.counterPersisted),
		"persist-ok":        w.coordCall(w.metadataPersisted),
		"persist-fail":      w.coordCall(w.metadataPersisted),
		"ack":               w.coordCall(w.stepAck),
		"decline":           w.coordCall(w.stepDecline),
		"task-finished":     w.coordCall(w.stepTaskFinished),
		"split-request":     w.coordCall(w.stepSplitRequest),
		"checkpoint":        w.coordCall(func(c *scripttest.Command) error { return w.coord.TriggerCheckpoint(w.now) }),
		"savepoint":         w.savepoint,
		"stop":              w.stop,
		"failover":          w.coordCall(w.failover),
		"restarted":         w.coordCall(func(c *scripttest.Command) error { w.coord.JobRestarted(w.now); return nil }),
		"crash-coordinator": w.crashCoordinator,
		"state":             w.coordState,
		"new-task":          w.newTask,
		"task-state":        w.taskState,
		"in-flight":         w.inFlight,
		"deliver":           w.deliver,
		"stabilize":         w.stabilize,
		"drop":              w.drop,
	}
	for name, f := range w.taskCommands() {
		cmds[name] = w.taskCall(f)
	}
	for name, f := range cmds {
		cmds[name] = func(c *scripttest.Command) []string {
			if v, ok := c.Option("t"); ok {
				at := protocol.Time(c.ParseInt("t", v))
				if at < w.now {
					c.Fatalf("time goes backwards: t=%d after t=%d", at, w.now)
				}
				w.now = at
			}
			return f(c)
		}
	}
	return cmds
}

// coordCall wraps a command that calls the coordinator: it renders the
// coordinator's Ready after the call, and the error the call returned.
func (w *world) coordCall(call func(c *scripttest.Command) error) scripttest.Func {
	return func(c *scripttest.Command) []string {
		w.needCoordinator(c)
		err := call(c)
		return w.coordReady(err)
	}
}

func (w *world) needCoordinator(c *scripttest.Command) {
	if w.coord == nil {
		c.Fatalf("%s: there is no coordinator", c.Name)
	}
}

func (w *world) newCoordinator(c *scripttest.Command) []string {
	durable := protocol.Durable{}
	if c.Flag("recover") {
		durable = protocol.Durable{HighestID: w.counter, Completed: slices.Clone(w.store)}
	} else {
		w.counter, w.store = 0, nil // a new job
	}
	w.counterWrite, w.metaWrites = nil, nil
	coord, err := protocol.NewCoordinator(w.cfg, w.topo, durable, w.now)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	w.coord = coord
	return w.coordReady(nil)
}

func (w *world) counterPersisted(c *scripttest.Command) error {
	if len(w.counterWrite) == 0 {
		c.Fatalf("no counter write outstanding")
	}
	v := w.counterWrite[len(w.counterWrite)-1]
	w.counterWrite = nil
	if c.Name == "counter-fail" {
		w.coord.CounterPersisted(w.now, v, errors.New("disk full"))
		return nil
	}
	w.counter = v
	w.coord.CounterPersisted(w.now, v, nil)
	return nil
}

func (w *world) metadataPersisted(c *scripttest.Command) error {
	id := checkpointOption(c)
	i := slices.IndexFunc(w.metaWrites, func(cc protocol.CompletedCheckpoint) bool { return cc.ID == id })
	if i < 0 {
		c.Fatalf("no metadata write outstanding for %s", id)
	}
	cc := w.metaWrites[i]
	w.metaWrites = slices.Delete(w.metaWrites, i, i+1)
	if c.Name == "persist-fail" {
		w.coord.MetadataPersisted(w.now, id, errors.New("store unavailable"))
		return nil
	}
	w.store = append(w.store, cc)
	w.coord.MetadataPersisted(w.now, id, nil)
	return nil
}

func (w *world) stepAck(c *scripttest.Command) error {
	task := protocol.TaskID(c.Arg(0))
	return w.coord.Step(w.now, protocol.AckMessage(task, checkpointOption(c), snapshotFrom(task, c)))
}

func (w *world) stepDecline(c *scripttest.Command) error {
	task := protocol.TaskID(c.Arg(0))
	return w.coord.Step(w.now, protocol.DeclineMessage(task, checkpointOption(c), reasonOption(c, 0)))
}

func (w *world) stepTaskFinished(c *scripttest.Command) error {
	return w.coord.Step(w.now, protocol.TaskFinishedMessage(protocol.TaskID(c.Arg(0))))
}

// stepSplitRequest hands the coordinator a reader's split request,
// split-request TASK seq=N, typed by hand.
func (w *world) stepSplitRequest(c *scripttest.Command) error {
	return w.coord.Step(w.now, protocol.Message{Type: protocol.MsgSplitRequest, Task: protocol.TaskID(c.Arg(0)), Seq: uint64(c.Int("seq", 0))})
}

func (w *world) savepoint(c *scripttest.Command) []string {
	w.needCoordinator(c)
	id, err := w.coord.TriggerSavepoint(w.now)
	if err != nil {
		return w.coordReady(err)
	}
	return w.coordReady(nil, "savepoint id "+id.String())
}

func (w *world) stop(c *scripttest.Command) []string {
	w.needCoordinator(c)
	stop := w.coord.StopWithSavepoint
	if c.Flag("drain") {
		stop = w.coord.DrainWithSavepoint
	}
	id, err := stop(w.now)
	if err != nil {
		return w.coordReady(err)
	}
	return w.coordReady(nil, "stop id "+id.String())
}

func (w *world) failover(c *scripttest.Command) error {
	w.coord.RequestFailover(w.now, reasonOption(c, 0))
	return nil
}

// crashCoordinator drops the coordinator, its outstanding writes and the
// messages on their way to it.
func (w *world) crashCoordinator(c *scripttest.Command) []string {
	w.coord = nil
	w.counterWrite, w.metaWrites = nil, nil
	w.net.toCoordinator = nil
	return []string{"ok"}
}

// checkpointOption returns cp=N (0 when absent).
func checkpointOption(c *scripttest.Command) protocol.CheckpointID {
	return protocol.CheckpointID(c.Int("cp", 0))
}

// reasonOption returns reason=NAME; def when absent, unless def is 0, which
// makes the option required.
func reasonOption(c *scripttest.Command, def protocol.Reason) protocol.Reason {
	s, ok := c.Option("reason")
	if !ok {
		if def == 0 {
			c.Fatalf("%s needs reason=", c.Name)
		}
		return def
	}
	for r := protocol.Reason(1); r < 64; r++ {
		if r.String() == s {
			return r
		}
	}
	c.Fatalf("unknown reason %q", s)
	return 0
}

// snapshotFrom reads a snapshot's description: handle= (by default
// TASK@CP), size=, offsets=split:offset,..., shared=handle@cp,... and the
// flag final.
func snapshotFrom(task protocol.TaskID, c *scripttest.Command) protocol.TaskSnapshot {
	s := protocol.TaskSnapshot{
		Handle:         c.StringOption("handle", ""),
		StateSizeBytes: c.Int("size", 0),
		Final:          c.Flag("final"),
	}
	if s.Handle == "" {
		s.Handle = string(task) + "@" + c.StringOption("cp", "")
	}
	if offs, ok := c.Option("offsets"); ok {
		for _, o := range strings.Split(offs, ",") {
			split, off, ok := strings.Cut(o, ":")
			if !ok {
				c.Fatalf("offsets=%s: want split:offset,...", offs)
			}
			s.SourceOffsets = append(s.SourceOffsets, protocol.SourceOffset{Split: split, Offset: c.ParseInt("offsets", off)})
		}
	}
	if shared, ok := c.Option("shared"); ok {
		for _, p := range strings.Split(shared, ",") {
			handle, cp, ok := strings.Cut(p, "@")
			if !ok {
				c.Fatalf("shared=%s: want handle@cp,...", shared)
			}
			s.Shared = append(s.Shared, protocol.SharedPiece{Handle: handle, UploadedFor: protocol.CheckpointID(c.ParseInt("shared", cp))})
		}
	}
	return s
}

// configure applies the options in the order written, then validates the
// configuration.
func (w *world) configure(c *scripttest.Command) []string {
	for _, o := range c.Options() {
		if o.Key == "mode" {
			m, err := protocol.ParseMode(o.Value)
			if err != nil {
				c.Fatalf("mode=%s: %v", o.Value, err)
			}
			w.cfg.Mode = m
			continue
		}
		n := c.ParseInt(o.Key, o.Value)
		switch o.Key {
		case "interval":
			w.cfg.Interval = time.Duration(n)
		case "timeout":
			w.cfg.Timeout = time.Duration(n)
		case "max-concurrent":
			w.cfg.MaxConcurrent = int(n)
		case "min-pause":
			w.cfg.MinPause = time.Duration(n)
		case "tolerable":
			w.cfg.TolerableFailures = int(n)
		case "retained":
			w.cfg.RetainedCheckpoints = int(n)
		case "alignment-timeout":
			w.cfg.AlignmentTimeout = time.Duration(n)
		case "max-pending":
			w.cfg.MaxPendingCheckpoints = int(n)
		case "max-buffered":
			w.cfg.MaxBufferedRecords = int(n)
		case "seed":
			w.cfg.JitterSeed = uint64(n)
		case "t":
			// the clock, read by every command
		default:
			c.Fatalf("config has no option %s", o.Key)
		}
	}
	if err := w.cfg.Validate(); err != nil {
		return []string{"error: " + err.Error()}
	}
	return []string{"ok"}
}

// topology sets the job graph: edges a->b, and tasks=a,b,... for tasks
// with no channel.
func (w *world) topology(c *scripttest.Command) []string {
	w.topo = protocol.Topology{}
	add := func(id protocol.TaskID) {
		if !slices.Contains(w.topo.Tasks, id) {
			w.topo.Tasks = append(w.topo.Tasks, id)
		}
	}
	if tasks, ok := c.Option("tasks"); ok {
		for _, id := range strings.Split(tasks, ",") {
			add(protocol.TaskID(id))
		}
	}
	if readers, ok := c.Option("readers"); ok {
		src := protocol.SplitSource{Splits: strings.Split(c.StringOption("splits", ""), ",")}
		for _, id := range strings.Split(readers, ",") {
			src.Readers = append(src.Readers, protocol.TaskID(id))
		}
		w.topo.SplitSources = []protocol.SplitSource{src}
	}
	for _, edge := range c.Args() {
		from, to, ok := strings.Cut(edge, "->")
		if !ok {
			c.Fatalf("bad edge %q: want from->to", edge)
		}
		add(protocol.TaskID(from))
		add(protocol.TaskID(to))
		w.topo.Channels = append(w.topo.Channels, protocol.ChannelID{From: protocol.TaskID(from), To: protocol.TaskID(to)})
	}
	if err := w.topo.Validate(); err != nil {
		return []string{"error: " + err.Error()}
	}
	w.net = newNetwork()
	return []string{"ok"}
}

// coordReady takes the coordinator's Ready, carries out what a host does
// at once (queue the messages, note the writes asked for, drop discarded
// checkpoints from the store) and renders it.
func (w *world) coordReady(err error, prefix ...string) []string {
	out := prefix
	rd := w.coord.Ready()
	w.counterWrite = append(w.counterWrite, rd.CounterWrites...)
	w.metaWrites = append(w.metaWrites, rd.MetadataWrites...)
	for _, v := range rd.CounterWrites {
		out = append(out, "counter-write "+v.String())
	}
	for _, m := range rd.MetadataWrites {
		out = append(out, "metadata-write "+m.String())
		for _, ts := range m.Tasks {
			out = append(out, "  "+string(ts.Task)+" "+ts.Snapshot.String())
		}
		if len(w.topo.SplitSources) > 0 {
			out = append(out, "  unassigned=["+strings.Join(m.Unassigned, " ")+"]")
		}
	}
	for _, m := range rd.Messages {
		out = append(out, "send "+m.String())
		w.net.toTasks = append(w.net.toTasks, m)
	}
	for _, tr := range rd.Triggered {
		out = append(out, "triggered "+tr.String())
	}
	for _, c := range rd.Completed {
		out = append(out, "completed "+c.String())
	}
	for _, ab := range rd.Aborted {
		out = append(out, "aborted "+ab.String())
	}
	for _, d := range rd.Discarded {
		out = append(out, "discarded "+d.String())
		w.store = slices.DeleteFunc(w.store, func(c protocol.CompletedCheckpoint) bool { return c.ID == d.ID })
	}
	for _, r := range rd.Released {
		out = append(out, "released "+r.String())
	}
	if rd.Failover != nil {
		out = append(out, "failover "+rd.Failover.String())
	}
	if rd.JobFinished {
		out = append(out, "job-finished")
	}
	if err != nil {
		out = append(out, "error: "+err.Error())
	}
	if len(out) == 0 {
		out = append(out, "ok")
	}
	return out
}

func (w *world) coordState(c *scripttest.Command) []string {
	w.needCoordinator(c)
	coord := w.coord
	st := coord.Status()
	var ids []string
	for _, id := range st.Pending {
		ids = append(ids, id.String())
	}
	var done []string
	for _, cc := range st.Retained {
		done = append(done, cc.ID.String())
	}
	latest := "none"
	if l := coord.LatestRestorable(); l != nil {
		latest = l.ID.String()
	}
	deadline := "none"
	if d := coord.NextDeadline(); d != protocol.NoDeadline {
		deadline = d.String()
	}
	var stored []string
	for _, cc := range w.store {
		stored = append(stored, cc.ID.String()+":"+cc.Kind.String())
	}
	return []string{
		"pending=[" + strings.Join(ids, " ") + "] retained=[" + strings.Join(done, " ") + "] latest=" + latest,
		"highest=" + st.HighestID.String() + " failures=" + strconv.Itoa(st.ConsecutiveFailures) + " deadline=" + deadline,
		"durable counter=" + w.counter.String() + " store=[" + strings.Join(stored, " ") + "]",
	}
}

// TestScriptMistakesFail shows that the world's scripts are strict: each
// of these used to render an error or panic line that -rewrite saved as
// the expected output, after which the script passed.
func TestScriptMistakesFail(t *testing.T) {
	const start = "topology src-0->sink-0\n----\nok\n\ncoordinator t=0\n----\nok\n\n"
	for _, tc := range []struct{ script, want string }{
		{"tikc t=100\n----\npanic: unknown command tikc\n", `unknown command "tikc"`},
		{"tick t=100 cp=1\n----\ncounter-write 1\n", "tick does not take cp=1"},
		{"tick t=1o0\n----\ncounter-write 1\n", "option t=1o0: not an integer"},
		{"config mode=alinged\n----\nok\n", `unknown mode "alinged"`},
		{"config intervall=5\n----\nok\n", "config has no option intervall"},
		{"counter-ok\n----\npanic: no counter write outstanding\n", "no counter write outstanding"},
		{"ack sink-0 cp=1 finall\n----\nok\n", "ack does not take finall"},
		{"failover reason=oops\n----\nok\n", `unknown reason "oops"`},
		{"barrier sink-0 from=src-0 cp=1\n----\nok\n", "no task sink-0"},
		{"deliver nobody\n----\nnothing in flight\n", "no task nobody in the topology"},
	} {
		err := scripttest.Check("mistake.txt", start+tc.script, newWorld().commands())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want a failure saying %q", tc.script, err, tc.want)
		}
	}
}
