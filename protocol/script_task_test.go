package protocol_test

import (
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/protocol/internal/scripttest"
)

// taskFunc runs a command addressed to one task, the command's first
// positional argument, and returns its output before the task's Ready and
// the error of the call.
type taskFunc func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error)

// taskCall wraps a command that calls a task: it renders the task's Ready
// after the call, and the error the call returned.
func (w *world) taskCall(call taskFunc) scripttest.Func {
	return func(c *scripttest.Command) []string {
		id, t := w.task(c)
		out, err := call(c, id, t)
		return w.taskReady(id, t, err, out...)
	}
}

// task returns the task the command names.
func (w *world) task(c *scripttest.Command) (protocol.TaskID, *protocol.Task) {
	id := protocol.TaskID(c.Arg(0))
	t := w.tasks[id]
	if t == nil {
		c.Fatalf("no task %s (new-task makes one)", id)
	}
	return id, t
}

// newTask makes a new incarnation of a task of the topology. The events
// the old one left on its outputs are lost (see inFlightEvent).
func (w *world) newTask(c *scripttest.Command) []string {
	id := protocol.TaskID(c.Arg(0))
	cfg := w.cfg.TaskConfig(id, w.topo.Inputs(id), w.topo.Outputs(id))
	if v, ok := c.Option("wait-final"); ok {
		cfg.WaitForFinalCheckpoint = v != "false"
	}
	t, err := protocol.NewTask(cfg)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	w.tasks[id] = t
	return []string{"ok"}
}

func (w *world) taskCommands() map[string]taskFunc {
	receive := func(event func(c *scripttest.Command) protocol.ChannelEvent) taskFunc {
		return func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.Receive(w.now, w.input(c, id), event(c))
		}
	}
	return map[string]taskFunc{
		"restore": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.Restore(w.now, checkpointOption(c), snapshotFrom(id, c))
		},
		"barrier": receive(func(c *scripttest.Command) protocol.ChannelEvent {
			return protocol.Barrier(checkpointOption(c), kindFlag(c), w.modeOption(c), protocol.Time(c.Int("ts", 0)))
		}),
		"cancel": receive(func(c *scripttest.Command) protocol.ChannelEvent { return protocol.CancelMarker(checkpointOption(c)) }),
		"eod":    receive(func(c *scripttest.Command) protocol.ChannelEvent { return protocol.EndOfData() }),
		"eop":    receive(func(c *scripttest.Command) protocol.ChannelEvent { return protocol.EndOfPartition() }),
		"admit": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			input := w.input(c, id)
			var answers []string
			for range c.Int("n", 1) {
				answers = append(answers, t.Admit(input).String())
			}
			return []string{"admit " + strings.Join(answers, ", ")}, nil
		},
		"trigger": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			m := protocol.TriggerMessage(toOption(c, id), checkpointOption(c), kindFlag(c), w.modeOption(c), w.now)
			m.Seq = uint64(c.Int("seq", 0))
			return nil, t.Step(w.now, m)
		},
		"assign": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			m := protocol.Message{Type: protocol.MsgSplitAssign, Task: toOption(c, id), Checkpoint: checkpointOption(c),
				Split: c.StringOption("split", ""), Seq: uint64(c.Int("seq", 0))}
			if c.Flag("none") {
				m.Type, m.Split = protocol.MsgNoMoreSplits, ""
			}
			return nil, t.Step(w.now, m)
		},
		"request-split": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			t.RequestSplit(w.now)
			return nil, nil
		},
		"notify": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.Step(w.now, protocol.NotifyCompleteMessage(toOption(c, id), checkpointOption(c)))
		},
		"notify-aborted": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.Step(w.now, protocol.NotifyAbortedMessage(toOption(c, id), checkpointOption(c), protocol.ReasonExpired))
		},
		"snap-ok": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.SnapshotCompleted(w.now, checkpointOption(c), snapshotFrom(id, c))
		},
		"snap-fail": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.SnapshotFailed(w.now, checkpointOption(c), reasonOption(c, protocol.ReasonUploadFailed))
		},
		"finish": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return nil, t.Finish(w.now)
		},
		"stopping": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return []string{"stopping " + strconv.FormatBool(t.Stopping())}, nil
		},
		"finished": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			return []string{"finished " + strconv.FormatBool(t.Finished())}, nil
		},
		"task-tick": func(c *scripttest.Command, id protocol.TaskID, t *protocol.Task) ([]string, error) {
			t.Tick(w.now)
			return nil, nil
		},
	}
}

// input returns the index of the task's input from=TASK.
func (w *world) input(c *scripttest.Command, id protocol.TaskID) int {
	from, ok := c.Option("from")
	if !ok {
		c.Fatalf("%s needs from=", c.Name)
	}
	for i, ch := range w.topo.Inputs(id) {
		if ch.From == protocol.TaskID(from) {
			return i
		}
	}
	c.Fatalf("task %s has no input from %s", id, from)
	return 0
}

// modeOption returns mode=NAME, by default the configured mode.
func (w *world) modeOption(c *scripttest.Command) protocol.Mode {
	v, ok := c.Option("mode")
	if !ok {
		return w.cfg.Mode
	}
	m, err := protocol.ParseMode(v)
	if err != nil {
		c.Fatalf("mode=%s: %v", v, err)
	}
	return m
}

// kindFlag returns KindSavepoint for the flag savepoint, KindStopSavepoint
// for stop, KindDrainSavepoint for drain, else KindCheckpoint.
func kindFlag(c *scripttest.Command) protocol.Kind {
	switch {
	case c.Flag("savepoint"):
		return protocol.KindSavepoint
	case c.Flag("stop"):
		return protocol.KindStopSavepoint
	case c.Flag("drain"):
		return protocol.KindDrainSavepoint
	}
	return protocol.KindCheckpoint
}

// toOption returns to=TASK, the addressee written into a control message,
// by default the task that receives it (a different one makes a misrouted
// message).
func toOption(c *scripttest.Command, id protocol.TaskID) protocol.TaskID {
	return protocol.TaskID(c.StringOption("to", string(id)))
}

// taskReady takes the task's Ready, queues its sends and messages and
// renders it.
func (w *world) taskReady(id protocol.TaskID, t *protocol.Task, err error, prefix ...string) []string {
	rd := t.Ready()
	outputs := w.topo.Outputs(id)
	for _, s := range rd.Sends {
		w.net.send(outputs[s.Output], s.Event, t)
	}
	w.net.toCoordinator = append(w.net.toCoordinator, rd.Messages...)
	return renderTaskReady(rd, err, prefix...)
}

func renderTaskReady(rd protocol.TaskReady, err error, prefix ...string) []string {
	out := prefix
	for _, s := range rd.Snapshots {
		out = append(out, s.String())
	}
	for _, s := range rd.Sends {
		out = append(out, "send "+s.String())
	}
	for _, id := range rd.Sealed {
		out = append(out, "sealed cp="+id.String())
	}
	for _, ab := range rd.Aborted {
		out = append(out, "aborted "+ab.String())
	}
	for _, r := range rd.Released {
		out = append(out, "released "+r.String())
	}
	for _, m := range rd.Messages {
		out = append(out, "message "+m.String())
	}
	for _, n := range rd.Notifications {
		out = append(out, "listener "+n.String())
	}
	for _, s := range rd.Splits {
		out = append(out, "split "+s)
	}
	if rd.NoMoreSplits {
		out = append(out, "no-more-splits")
	}
	if rd.Exit {
		out = append(out, "exit")
	}
	if err != nil {
		out = append(out, "error: "+err.Error())
	}
	if len(out) == 0 {
		out = append(out, "ok")
	}
	return out
}

func (w *world) taskState(c *scripttest.Command) []string {
	id, t := w.task(c)
	st := t.Status()
	var inputs []string
	for i, ch := range w.topo.Inputs(id) {
		state := "open"
		if !st.Open[i] {
			state = "closed"
		} else if st.Blocked[i] {
			state = "blocked"
		}
		inputs = append(inputs, string(ch.From)+":"+state)
	}
	aligning := "none"
	if st.Aligning != 0 {
		aligning = st.Aligning.String()
	}
	deadline := "none"
	if d := t.NextDeadline(); d != protocol.NoDeadline {
		deadline = d.String()
	}
	return []string{
		"inputs=[" + strings.Join(inputs, " ") + "] aligning=" + aligning + " deadline=" + deadline,
		"restored=" + st.RestoredFrom.String() + " notified=" + st.LastNotified.String() +
			" finished=" + strconv.FormatBool(st.Finished),
	}
}
