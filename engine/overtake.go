package engine

import "github.com/ckptsim/ckptsim/protocol"

// overtaking is an unaligned barrier being delivered ahead of the data buffers that arrived
// before it on its channel, and those buffers.
type overtaking struct {
	cp      protocol.CheckpointID
	input   int
	records []rec
}

// tryOvertake hands an unaligned barrier to the protocol the moment it arrives, ahead of the
// buffers still queued before it on its channel, the way Flink treats unaligned barriers as
// priority events: the snapshot does not wait until the task has worked through its input
// queue. The overtaken buffers were sent before the upstream snapshot and are not consumed
// before this one, so they belong to the checkpoint's channel state: the engine adds them
// itself (the protocol only sees the buffers it is asked to Admit, and to it they now come
// after the barrier). They are still processed afterwards, in order.
//
// Only data may be overtaken: with an event ahead (an older barrier, a cancel marker, end of
// data), the barrier waits its turn, so events keep their order.
func (t *task) tryOvertake(i int, ev protocol.ChannelEvent) bool {
	if t.proto == nil || t.phase != phaseRunning || ev.Type != protocol.EventBarrier ||
		ev.Mode != protocol.ModeUnaligned || t.proto.Blocked(i) {
		return false
	}
	in := t.inputs[i]
	var records []rec
	for _, recs := range in.replay {
		records = append(records, recs...)
	}
	for _, item := range in.queue.all() {
		if item.records == nil {
			return false
		}
		records = append(records, item.records...)
	}
	t.overtake = &overtaking{cp: ev.Checkpoint, input: i, records: records}
	t.receiveEvent(i, ev)
	if ps := t.snapshots[ev.Checkpoint]; ps != nil {
		t.applyOvertake(ps)
	}
	t.overtake = nil
	return true
}

// applyOvertake adds the overtaken buffers to the channel state of ps if they belong to it;
// takeSnapshot and sealSnapshot call it before the snapshot's content is fixed.
func (t *task) applyOvertake(ps *pendingSnapshot) {
	o := t.overtake
	if o == nil || o.cp != ps.req.Checkpoint || !ps.recording && ps.finalised {
		return
	}
	ps.data.channel[o.input] = append(ps.data.channel[o.input], o.records...)
	t.overtake = nil
}

// sendPriority sends an unaligned barrier ahead of the buffers queued on output out (for
// lack of credit), the sending half of overtaking. The protocol allows it on condition that
// the overtaken records join the snapshot as output-side channel state, to be emitted again
// on restore: they are taken out of the snapshot's sent count (the receiver will see them
// after the barrier) and stay queued, to be sent as usual. It reports false, and the barrier
// queues behind them, when the snapshot is already fixed or an event is queued ahead.
func (t *task) sendPriority(out int, ev protocol.ChannelEvent) bool {
	ps := t.snapshots[ev.Checkpoint]
	if ev.Type != protocol.EventBarrier || ps == nil || ps.finalised {
		return false
	}
	t.seal(out)
	o := t.outputs[out]
	var overtaken []rec
	for _, item := range o.queue.all() {
		if item.records == nil {
			return false
		}
		overtaken = append(overtaken, item.records...)
	}
	if ps.data.output == nil {
		ps.data.output = make([][]rec, len(t.outputs))
		ps.data.overtaken = make([]int64, len(t.outputs))
	}
	ps.data.overtaken[out] += int64(len(overtaken))
	ps.data.output[out] = append(ps.data.output[out], overtaken...)
	ps.data.sent[out] -= int64(len(overtaken))
	t.proc.Send(o.to, &eventMsg{event: ev, input: o.input})
	return true
}
