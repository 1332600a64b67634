package protocol_test

// Scripted interaction tests: testdata/*.txt hold one command per entry
// and, under "----", the rendered outputs of that command. Run
// `go test ./protocol -run TestScripts -rewrite` to regenerate the outputs
// after a deliberate change, and review the diff.

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/*.txt")

// scriptEntry is one command and its expected output.
type scriptEntry struct {
	comments []string // lines before the command (comments, blank lines)
	command  string
	expected []string
}

func parseScript(t *testing.T, path string) (entries []scriptEntry, trailer []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var pending []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			pending = append(pending, line)
			continue
		}
		e := scriptEntry{comments: pending, command: line}
		pending = nil
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("%s:%d: command without ---- line", path, i+1)
		}
		i += 2
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			e.expected = append(e.expected, lines[i])
		}
		i-- // the blank line is kept as a comment of the next entry
		entries = append(entries, e)
	}
	return entries, pending
}

func TestScripts(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			entries, trailer := parseScript(t, path)
			w := newWorld()
			var out strings.Builder
			for _, e := range entries {
				got := w.run(e.command)
				if !*rewrite && !slices.Equal(got, e.expected) {
					t.Errorf("%s: %s\n--- want\n%s\n--- got\n%s", path, e.command,
						strings.Join(e.expected, "\n"), strings.Join(got, "\n"))
				}
				for _, c := range e.comments {
					out.WriteString(c + "\n")
				}
				out.WriteString(e.command + "\n----\n")
				for _, g := range got {
					out.WriteString(g + "\n")
				}
			}
			for _, c := range trailer {
				out.WriteString(c + "\n")
			}
			if *rewrite {
				if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// world is the host of a script: one coordinator, any number of tasks, a
// durable store that holds what the coordinator's confirmed writes put
// there, and the virtual clock.
type world struct {
	cfg   protocol.Config
	topo  protocol.Topology
	now   protocol.Time
	coord *protocol.Coordinator
	tasks map[protocol.TaskID]*protocol.Task
	// durable storage
	counter      protocol.CheckpointID
	store        []protocol.CompletedCheckpoint
	counterWrite []protocol.CheckpointID
	metaWrites   []protocol.CompletedCheckpoint
}

func newWorld() *world {
	cfg := protocol.DefaultConfig()
	cfg.Interval = 100
	cfg.Timeout = 1000
	cfg.MaxPendingCheckpoints = 4
	cfg.MaxBufferedRecords = 3
	cfg.TolerableFailures = 0
	cfg.JitterSeed = 1
	return &world{cfg: cfg, tasks: map[protocol.TaskID]*protocol.Task{}}
}

// args is a parsed command line: positional words and key=value options.
type args struct {
	pos  []string
	opts map[string]string
}

func parseArgs(fields []string) args {
	a := args{opts: map[string]string{}}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok && !strings.Contains(k, ">") {
			a.opts[k] = v
		} else {
			a.pos = append(a.pos, f)
		}
	}
	return a
}

func (a args) int(key string, def int64) int64 {
	v, ok := a.opts[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("option %s=%q: %v", key, v, err))
	}
	return n
}

func (a args) cp() protocol.CheckpointID { return protocol.CheckpointID(a.int("cp", 0)) }

func (a args) has(word string) bool { return slices.Contains(a.pos, word) }

func parseReason(s string) protocol.Reason {
	for r := protocol.Reason(1); r < 64; r++ {
		if r.String() == s {
			return r
		}
	}
	panic("unknown reason " + s)
}

// run executes one command and returns its rendered output.
func (w *world) run(line string) (out []string) {
	defer func() {
		if r := recover(); r != nil {
			out = append(out, fmt.Sprintf("panic: %v", r))
		}
	}()
	fields := strings.Fields(line)
	a := parseArgs(fields[1:])
	if t, ok := a.opts["t"]; ok {
		n, _ := strconv.ParseInt(t, 10, 64)
		if protocol.Time(n) < w.now {
			panic("time goes backwards")
		}
		w.now = protocol.Time(n)
	}
	var err error
	switch cmd := fields[0]; cmd {
	case "config":
		return w.configure(a)
	case "topology":
		return w.topology(a)
	case "coordinator":
		durable := protocol.Durable{}
		if a.has("recover") {
			durable = protocol.Durable{HighestID: w.counter, Completed: slices.Clone(w.store)}
		} else {
			w.counter, w.store = 0, nil // a new job
		}
		w.counterWrite, w.metaWrites = nil, nil
		w.coord, err = protocol.NewCoordinator(w.cfg, w.topo, durable, w.now)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		return w.coordReady(nil)
	case "tick":
		w.coord.Tick(w.now)
	case "counter-ok", "counter-fail":
		if len(w.counterWrite) == 0 {
			panic("no counter write outstanding")
		}
		v := w.counterWrite[len(w.counterWrite)-1]
		w.counterWrite = nil
		if cmd == "counter-fail" {
			err := errors.New("disk full")
			w.coord.CounterPersisted(w.now, v, err)
		} else {
			w.counter = v
			w.coord.CounterPersisted(w.now, v, nil)
		}
	case "persist-ok", "persist-fail":
		id := a.cp()
		i := slices.IndexFunc(w.metaWrites, func(c protocol.CompletedCheckpoint) bool { return c.ID == id })
		if i < 0 {
			panic("no metadata write outstanding for " + id.String())
		}
		cc := w.metaWrites[i]
		w.metaWrites = slices.Delete(w.metaWrites, i, i+1)
		if cmd == "persist-ok" {
			w.store = append(w.store, cc)
			w.coord.MetadataPersisted(w.now, id, nil)
		} else {
			w.coord.MetadataPersisted(w.now, id, errors.New("store unavailable"))
		}
	case "ack":
		task := protocol.TaskID(a.pos[0])
		err = w.coord.Step(w.now, protocol.AckMessage(task, a.cp(), snapshotFrom(task, a)))
	case "decline":
		err = w.coord.Step(w.now, protocol.DeclineMessage(protocol.TaskID(a.pos[0]), a.cp(), parseReason(a.opts["reason"])))
	case "task-finished":
		err = w.coord.Step(w.now, protocol.TaskFinishedMessage(protocol.TaskID(a.pos[0])))
	case "checkpoint":
		err = w.coord.TriggerCheckpoint(w.now)
	case "savepoint":
		var id protocol.CheckpointID
		id, err = w.coord.TriggerSavepoint(w.now)
		if err == nil {
			out = append(out, "savepoint id "+id.String())
		}
	case "failover":
		w.coord.RequestFailover(w.now, parseReason(a.opts["reason"]))
	case "restarted":
		w.coord.JobRestarted(w.now)
	case "crash-coordinator":
		w.coord = nil
		w.counterWrite, w.metaWrites = nil, nil
		return []string{"ok"}
	case "state":
		return w.coordState()
	default:
		return w.taskCommand(cmd, a)
	}
	return w.coordReady(err, out...)
}

func snapshotFrom(task protocol.TaskID, a args) protocol.TaskSnapshot {
	s := protocol.TaskSnapshot{
		Handle:         a.opts["handle"],
		StateSizeBytes: a.int("size", 0),
		Final:          a.has("final"),
	}
	if s.Handle == "" {
		s.Handle = string(task) + "@" + a.opts["cp"]
	}
	if offs, ok := a.opts["offsets"]; ok {
		for _, o := range strings.Split(offs, ",") {
			split, off, _ := strings.Cut(o, ":")
			n, _ := strconv.ParseInt(off, 10, 64)
			s.SourceOffsets = append(s.SourceOffsets, protocol.SourceOffset{Split: split, Offset: n})
		}
	}
	return s
}

func (w *world) configure(a args) []string {
	for k, v := range a.opts {
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "mode":
			m, err := protocol.ParseMode(v)
			if err != nil {
				return []string{"error: " + err.Error()}
			}
			w.cfg.Mode = m
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
		default:
			panic("unknown config key " + k)
		}
	}
	if err := w.cfg.Validate(); err != nil {
		return []string{"error: " + err.Error()}
	}
	return []string{"ok"}
}

func (w *world) topology(a args) []string {
	w.topo = protocol.Topology{}
	add := func(id protocol.TaskID) {
		if !slices.Contains(w.topo.Tasks, id) {
			w.topo.Tasks = append(w.topo.Tasks, id)
		}
	}
	if tasks, ok := a.opts["tasks"]; ok {
		for _, id := range strings.Split(tasks, ",") {
			add(protocol.TaskID(id))
		}
	}
	for _, edge := range a.pos {
		from, to, ok := strings.Cut(edge, "->")
		if !ok {
			panic("bad edge " + edge)
		}
		add(protocol.TaskID(from))
		add(protocol.TaskID(to))
		w.topo.Channels = append(w.topo.Channels, protocol.ChannelID{From: protocol.TaskID(from), To: protocol.TaskID(to)})
	}
	if err := w.topo.Validate(); err != nil {
		return []string{"error: " + err.Error()}
	}
	return []string{"ok"}
}

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
	}
	for _, m := range rd.Messages {
		out = append(out, "send "+m.String())
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

func (w *world) coordState() []string {
	c := w.coord
	var ids []string
	for _, id := range c.Pending() {
		ids = append(ids, id.String())
	}
	var done []string
	for _, cc := range c.Completed() {
		done = append(done, cc.ID.String())
	}
	latest := "none"
	if l := c.LatestRestorable(); l != nil {
		latest = l.ID.String()
	}
	deadline := "none"
	if d := c.NextDeadline(); d != protocol.NoDeadline {
		deadline = d.String()
	}
	var stored []string
	for _, cc := range w.store {
		stored = append(stored, cc.ID.String()+":"+cc.Kind.String())
	}
	return []string{
		"pending=[" + strings.Join(ids, " ") + "] retained=[" + strings.Join(done, " ") + "] latest=" + latest,
		"highest=" + c.HighestID().String() + " failures=" + strconv.Itoa(c.ConsecutiveFailures()) + " deadline=" + deadline,
		"durable counter=" + w.counter.String() + " store=[" + strings.Join(stored, " ") + "]",
	}
}
