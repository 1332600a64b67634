package engine

import (
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// outputChannel is the sending end of one channel: a buffer being filled, a queue of sealed
// buffers and events waiting to go, and the credits the receiver granted. A data buffer
// leaves only against a credit; events need none but keep their place in the queue, so a
// barrier never overtakes the records emitted before it (FIFO channels).
type outputChannel struct {
	to string
	// input is the channel's index among the receiver's inputs, which buffers and events
	// carry, so that the receiver finds the channel without a look-up by name.
	input int
	// partial is the buffer being filled, in an array from the runtime's bufferPool (nil
	// while no buffer is started): sealing it hands the array itself to the network.
	partial []rec
	// flushAt is when the buffer being filled is due to leave part full: FlushInterval
	// after its first record.
	flushAt int64
	queue   fifo[outItem]
	queued  int // buffers (not events) in queue
	credits int
	// sent counts records emitted into the channel since the job's start: restored from
	// the checkpoint on restore, so that a snapshot's sent.<to> compares with the
	// receiver's recv.<from> across failovers.
	sent int64
}

type outItem struct {
	records []rec
	event   protocol.ChannelEvent // set when records is nil
}

// emit appends rec to output out, sealing the buffer when it is full.
func (t *task) emit(out int, r rec) {
	o := t.outputs[out]
	if len(o.partial) == 0 {
		t.startBuffer(o)
	}
	o.partial = append(o.partial, r)
	o.sent++
	if t.rt.cfg.TraceRecords {
		t.traceSent(o, r)
	}
	if len(o.partial) >= t.rt.cfg.Network.BufferRecords {
		t.seal(out)
	}
}

// startBuffer notes that o's buffer being filled gets its first record now: it leaves
// FlushInterval from now at the latest.
func (t *task) startBuffer(o *outputChannel) {
	if o.partial == nil {
		o.partial = t.rt.buffers.get()
	}
	o.flushAt = t.rt.env.Now() + int64(t.rt.cfg.Network.FlushInterval)
	t.armFlush(o.flushAt)
}

// traceSent traces r as sent on o (detailed traces).
func (t *task) traceSent(o *outputChannel, r rec) {
	t.trace(eventRecord(trace.KindRecordSend, t.plan.id, "", o.to, t.rt.plan.catalog.rid(r)))
}

// emitHashed emits each record to the output channel of the downstream task that owns its
// key (groups, by key, indexes channels: a hash router's), as emit would. The common case,
// a record that neither starts a buffer nor fills it, with records untraced, only joins the
// buffer, without a call.
func (t *task) emitHashed(channels []int, groups []int32, records []rec) {
	size, traced := t.rt.cfg.Network.BufferRecords, t.rt.cfg.TraceRecords
	for _, r := range records {
		out := channels[groups[r.key]]
		if out < 0 {
			t.unconnected(0, int(groups[r.key]))
		}
		o := t.outputs[out]
		if n := len(o.partial); n == 0 || n+1 >= size || traced {
			t.emit(out, r)
			continue
		}
		o.partial = append(o.partial, r)
		o.sent++
	}
}

// emitAll appends records to output out as emit would one by one, a run of records at a
// time: the flush timer is armed as a buffer starts, records are traced, and a buffer is
// sealed as it fills, in the same order.
func (t *task) emitAll(out int, records []rec) {
	o := t.outputs[out]
	size := t.rt.cfg.Network.BufferRecords
	for len(records) > 0 {
		if len(o.partial) == 0 {
			t.startBuffer(o)
		}
		n := min(len(records), max(size-len(o.partial), 1))
		o.partial = append(o.partial, records[:n]...)
		o.sent += int64(n)
		if t.rt.cfg.TraceRecords {
			for _, r := range records[:n] {
				t.traceSent(o, r)
			}
		}
		records = records[n:]
		if len(o.partial) >= size {
			t.seal(out)
		}
	}
}

// seal moves the partly filled buffer of out into its queue and sends what credits allow.
func (t *task) seal(out int) {
	o := t.outputs[out]
	if len(o.partial) == 0 {
		return
	}
	o.queue.push(outItem{records: o.partial})
	o.queued++
	o.partial = nil
	if limit := t.rt.cfg.Network.QueueBuffers + 2; o.queued > limit {
		panic(invariantf("engine: %s: output to %s queues %d buffers, over the bound %d", t.plan.id, o.to, o.queued, limit))
	}
	t.transmit(out)
}

// sendEvent puts ev on output out behind everything emitted before it.
func (t *task) sendEvent(out int, ev protocol.ChannelEvent) {
	t.seal(out)
	o := t.outputs[out]
	o.queue.push(outItem{event: ev})
	t.transmit(out)
}

// transmit sends queued items in order while credits allow.
func (t *task) transmit(out int) {
	o := t.outputs[out]
	for o.queue.len() > 0 {
		item := o.queue.front()
		if item.records != nil {
			if o.credits == 0 {
				break
			}
			o.credits--
			o.queued--
			m := t.rt.bufferMsgs.next()
			m.records, m.input = item.records, o.input
			t.proc.Send(o.to, m)
		} else {
			m := t.rt.eventMsgs.next()
			m.event, m.input = item.event, o.input
			t.proc.Send(o.to, m)
		}
		o.queue.pop()
	}
}

// onCredit handles credits returned by the receiver of output out.
func (t *task) onCredit(out int, n int) {
	o := t.outputs[out]
	o.credits += n
	if o.credits > t.rt.cfg.Network.Credits {
		panic(invariantf("engine: %s: output to %s holds %d credits, more than the %d granted", t.plan.id, o.to, o.credits, t.rt.cfg.Network.Credits))
	}
	t.transmit(out)
}

// hasRoom reports whether every output can take another input buffer's worth of records:
// a task that has no room stops consuming, which is how backpressure travels upstream.
func (t *task) hasRoom() bool {
	limit := t.rt.cfg.Network.QueueBuffers
	for _, o := range t.outputs {
		if o.queued >= limit {
			return false
		}
	}
	return true
}

// flushAll seals every partly filled buffer.
func (t *task) flushAll() {
	for i := range t.outputs {
		t.seal(i)
	}
}

// flushDue seals the part-filled buffers whose time has come and keeps the flush timer at
// the next one. A buffer waits its full FlushInterval even when a barrier sealed the one
// before it early: flushing every output whenever the oldest buffer is due would send a
// second, nearly empty buffer per channel and checkpoint interval.
func (t *task) flushDue() {
	now, next := t.rt.env.Now(), int64(-1)
	for i, o := range t.outputs {
		switch {
		case len(o.partial) == 0:
		case o.flushAt <= now:
			t.seal(i)
		case next < 0 || o.flushAt < next:
			next = o.flushAt
		}
	}
	if next >= 0 {
		t.armFlush(next)
	}
}

// armFlush makes sure the flush timer fires no later than at.
func (t *task) armFlush(at int64) {
	if t.flushArmed && t.flushAt <= at {
		return
	}
	t.flushArmed, t.flushAt = true, at
	if t.flushTimer == nil {
		t.flushTimer = t.proc.NewTimer(func() {
			t.flushArmed = false
			t.flushDue()
			t.pump()
		})
	}
	t.flushTimer.Reset(time.Duration(at - t.rt.env.Now()))
}
