package protocol_test

import (
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/protocol/internal/scripttest"
)

// network holds what is in flight in a script's world: control messages
// each way between the coordinator and the tasks, and the channel events
// on each data channel. Outputs go in as the Readys are rendered; deliver
// and stabilize take them out, so a script can let the coordinator and the
// tasks talk instead of typing each ack and barrier by hand. Records are
// not modelled (admit stands for them), so a channel holds events only.
type network struct {
	toCoordinator []protocol.Message
	toTasks       []protocol.Message // in the order sent, whatever the task
	channels      map[protocol.ChannelID][]inFlightEvent
}

// inFlightEvent is a channel event and the incarnation that sent it: when
// a task is replaced (new-task), the events its old incarnation left on
// its outputs are dropped, as a restart tears down the channels.
type inFlightEvent struct {
	event  protocol.ChannelEvent
	sender *protocol.Task
}

func newNetwork() network {
	return network{channels: map[protocol.ChannelID][]inFlightEvent{}}
}

// maxStabilizeRounds bounds stabilize: a script that keeps messages going
// round for longer is broken.
const maxStabilizeRounds = 100

// deliver hands over what is in flight now to one end:
//
//	deliver coordinator   the messages queued for the coordinator
//	deliver TASK          the messages queued for TASK, then the events on its
//	                      inputs, input by input, up to a blocked input
//	deliver FROM->TO      the events on one channel (n=N: the first N)
//
// What the deliveries cause is rendered under each, indented, and queued
// in turn, but not delivered by this command.
func (w *world) deliver(c *scripttest.Command) []string {
	to := c.Arg(0)
	var out []string
	switch from, dest, isChannel := strings.Cut(to, "->"); {
	case to == string(protocol.CoordinatorTask):
		out = w.deliverToCoordinator()
	case isChannel:
		ch := protocol.ChannelID{From: protocol.TaskID(from), To: protocol.TaskID(dest)}
		if !slices.Contains(w.topo.Channels, ch) {
			c.Fatalf("no channel %s in the topology", to)
		}
		out = w.deliverChannel(ch, int(c.Int("n", -1)))
	default:
		id := protocol.TaskID(to)
		if !slices.Contains(w.topo.Tasks, id) {
			c.Fatalf("no task %s in the topology", id)
		}
		out = w.deliverToTask(id)
	}
	if len(out) == 0 {
		return []string{"nothing in flight"}
	}
	return out
}

// stabilize delivers until nothing is in flight that can be delivered: the
// coordinator's messages, then each task's in topology order, round after
// round. Writes and snapshot uploads stay the script's to confirm.
func (w *world) stabilize(c *scripttest.Command) []string {
	var out []string
	for range maxStabilizeRounds {
		round := w.deliverToCoordinator()
		for _, id := range w.topo.Tasks {
			round = append(round, w.deliverToTask(id)...)
		}
		if len(round) == 0 {
			if len(out) == 0 {
				return []string{"nothing in flight"}
			}
			return out
		}
		out = append(out, round...)
	}
	c.Fatalf("still delivering after %d rounds", maxStabilizeRounds)
	return nil
}

// drop loses the control messages in flight to the coordinator or to a
// task (control messages may be lost; data channels never lose anything).
func (w *world) drop(c *scripttest.Command) []string {
	to := protocol.TaskID(c.Arg(0))
	var lost []protocol.Message
	if to == protocol.CoordinatorTask {
		lost, w.net.toCoordinator = w.net.toCoordinator, nil
	} else {
		lost = slices.DeleteFunc(slices.Clone(w.net.toTasks), func(m protocol.Message) bool { return m.Task != to })
		w.net.toTasks = slices.DeleteFunc(w.net.toTasks, func(m protocol.Message) bool { return m.Task == to })
	}
	var out []string
	for _, m := range lost {
		out = append(out, "lost "+m.String())
	}
	if len(out) == 0 {
		return []string{"nothing in flight"}
	}
	return out
}

// inFlight lists what is in flight, channels in topology order.
func (w *world) inFlight(c *scripttest.Command) []string {
	var out []string
	for _, m := range w.net.toCoordinator {
		out = append(out, "message "+m.String())
	}
	for _, m := range w.net.toTasks {
		out = append(out, "message "+m.String())
	}
	for _, ch := range w.topo.Channels {
		var events []string
		for _, e := range w.net.channels[ch] {
			events = append(events, e.event.String())
		}
		if len(events) > 0 {
			out = append(out, "channel "+ch.String()+": "+strings.Join(events, ", "))
		}
	}
	if len(out) == 0 {
		return []string{"nothing in flight"}
	}
	return out
}

func (w *world) deliverToCoordinator() []string {
	msgs := w.net.toCoordinator
	w.net.toCoordinator = nil
	var out []string
	for _, m := range msgs {
		if w.coord == nil {
			out = append(out, "lost "+m.String()+": no coordinator")
			continue
		}
		err := w.coord.Step(w.now, m)
		out = append(out, "recv "+m.String())
		out = append(out, indent(w.coordReady(err))...)
	}
	return out
}

func (w *world) deliverToTask(id protocol.TaskID) []string {
	var msgs []protocol.Message
	w.net.toTasks = slices.DeleteFunc(w.net.toTasks, func(m protocol.Message) bool {
		if m.Task == id {
			msgs = append(msgs, m)
			return true
		}
		return false
	})
	var out []string
	t := w.tasks[id]
	for _, m := range msgs {
		if t == nil {
			out = append(out, "lost "+m.String()+": no task "+string(id))
			continue
		}
		err := t.Step(w.now, m)
		out = append(out, "recv "+m.String())
		out = append(out, indent(w.taskReady(id, t, err))...)
	}
	for _, ch := range w.topo.Inputs(id) {
		out = append(out, w.deliverChannel(ch, -1)...)
	}
	return out
}

// deliverChannel hands the first n events on ch (all for n < 0) to its
// receiver, stopping at a blocked input: an event behind a barrier the
// receiver is aligning for must wait, as the records behind it do.
func (w *world) deliverChannel(ch protocol.ChannelID, n int) []string {
	t := w.tasks[ch.To]
	if t == nil {
		return nil // not deployed yet: the events wait
	}
	input := slices.Index(w.topo.Inputs(ch.To), ch)
	var out []string
	for n != 0 && len(w.net.channels[ch]) > 0 {
		e := w.net.channels[ch][0]
		if e.sender != w.tasks[ch.From] {
			w.net.channels[ch] = w.net.channels[ch][1:]
			out = append(out, "lost "+ch.String()+" "+e.event.String()+": sent by an old incarnation")
			continue
		}
		if t.Blocked(input) {
			break
		}
		w.net.channels[ch] = w.net.channels[ch][1:]
		n--
		err := t.Receive(w.now, input, e.event)
		out = append(out, "recv "+ch.String()+" "+e.event.String())
		out = append(out, indent(w.taskReady(ch.To, t, err))...)
	}
	return out
}

// send puts an event at the tail of its channel. A priority barrier may
// overtake records but never another event, and the channels here hold
// events only, so the tail is its place too.
func (n *network) send(ch protocol.ChannelID, e protocol.ChannelEvent, sender *protocol.Task) {
	n.channels[ch] = append(n.channels[ch], inFlightEvent{event: e, sender: sender})
}

// indent renders the outputs of a delivery under it; a bare "ok" says
// nothing there.
func indent(lines []string) []string {
	if len(lines) == 1 && lines[0] == "ok" {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}
