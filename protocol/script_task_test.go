package protocol_test

import (
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
)

// taskCommand runs the commands that address one task, named by the first
// positional word.
func (w *world) taskCommand(cmd string, a args) []string {
	if len(a.pos) == 0 {
		panic("unknown command " + cmd)
	}
	id := protocol.TaskID(a.pos[0])
	if cmd == "new-task" {
		cfg := w.cfg.TaskConfig(id, w.topo.Inputs(id), w.topo.Outputs(id))
		if a.opts["wait-final"] == "false" {
			cfg.WaitForFinalCheckpoint = false
		}
		t, err := protocol.NewTask(cfg)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		w.tasks[id] = t
		return []string{"ok"}
	}
	t := w.tasks[id]
	if t == nil {
		panic("no task " + string(id))
	}
	var err error
	var out []string
	input := func() int {
		from := protocol.TaskID(a.opts["from"])
		for i, c := range w.topo.Inputs(id) {
			if c.From == from {
				return i
			}
		}
		panic("task " + string(id) + " has no input from " + string(from))
	}
	mode := w.cfg.Mode
	if m, ok := a.opts["mode"]; ok {
		mode, err = protocol.ParseMode(m)
		if err != nil {
			panic(err)
		}
	}
	kind := protocol.KindCheckpoint
	if a.has("savepoint") {
		kind = protocol.KindSavepoint
	}
	to := id
	if v, ok := a.opts["to"]; ok {
		to = protocol.TaskID(v)
	}
	switch cmd {
	case "restore":
		snap := snapshotFrom(id, a)
		err = t.Restore(w.now, a.cp(), snap)
	case "barrier":
		err = t.Receive(w.now, input(), protocol.Barrier(a.cp(), kind, mode, protocol.Time(a.int("ts", 0))))
	case "cancel":
		err = t.Receive(w.now, input(), protocol.CancelMarker(a.cp()))
	case "eod":
		err = t.Receive(w.now, input(), protocol.EndOfData())
	case "eop":
		err = t.Receive(w.now, input(), protocol.EndOfPartition())
	case "admit":
		n := int(a.int("n", 1))
		var answers []string
		for range n {
			answers = append(answers, t.Admit(input()).String())
		}
		out = append(out, "admit "+strings.Join(answers, ", "))
	case "trigger":
		err = t.Step(w.now, protocol.TriggerMessage(to, a.cp(), kind, mode, w.now))
	case "notify":
		err = t.Step(w.now, protocol.NotifyCompleteMessage(to, a.cp()))
	case "notify-aborted":
		err = t.Step(w.now, protocol.NotifyAbortedMessage(to, a.cp(), protocol.ReasonExpired))
	case "snap-ok":
		err = t.SnapshotCompleted(w.now, a.cp(), snapshotFrom(id, a))
	case "snap-fail":
		reason := protocol.ReasonUploadFailed
		if r, ok := a.opts["reason"]; ok {
			reason = parseReason(r)
		}
		err = t.SnapshotFailed(w.now, a.cp(), reason)
	case "finish":
		err = t.Finish(w.now)
	case "task-tick":
		t.Tick(w.now)
	case "task-state":
		return w.taskState(id, t)
	default:
		panic("unknown command " + cmd)
	}
	return renderTaskReady(t.Ready(), err, out...)
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

func (w *world) taskState(id protocol.TaskID, t *protocol.Task) []string {
	var inputs []string
	for i, c := range w.topo.Inputs(id) {
		state := "open"
		if !t.Open(i) {
			state = "closed"
		} else if t.Blocked(i) {
			state = "blocked"
		}
		inputs = append(inputs, string(c.From)+":"+state)
	}
	aligning := "none"
	if cp, ok := t.Aligning(); ok {
		aligning = cp.String()
	}
	deadline := "none"
	if d := t.NextDeadline(); d != protocol.NoDeadline {
		deadline = d.String()
	}
	return []string{
		"inputs=[" + strings.Join(inputs, " ") + "] aligning=" + aligning + " deadline=" + deadline,
		"restored=" + t.RestoredFrom().String() + " notified=" + t.LastNotified().String() +
			" finished=" + strconv.FormatBool(t.Finished()),
	}
}
