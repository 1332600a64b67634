package engine

import "github.com/ckptsim/ckptsim/protocol"

// inputChannel is the receiving end of one channel: buffers and events in arrival order,
// waiting to be consumed. Its queue is bounded by the credits the receiver granted, plus
// events, of which a sender emits a bounded number per checkpoint, plus duplicates (the
// out-of-model data.duplicate fault), each of which trails its original, so that no more
// than the credits plus one can wait. After a restore, the channel state recorded for the
// channel is replayed first, from its own queue, which holds no credits.
type inputChannel struct {
	from   string
	replay [][]rec
	queue  fifo[inItem]
	// recv counts records consumed from the channel since the job's start (restored from
	// the checkpoint, like outputChannel.sent).
	recv int64
	// ended is set once end of data or end of partition was delivered.
	ended bool
	// unannounced counts consumed network buffers whose credits the sender has not been
	// given back yet (returnCredit).
	unannounced int
	// duplicates counts the queued items that are duplicates (inItem.duplicate).
	duplicates int
}

type inItem struct {
	records []rec
	event   protocol.ChannelEvent // set when records is nil
	// duplicate marks records delivered a second time (bufferMsg.CopyMessage): they hold no
	// credit and no pooled array.
	duplicate bool
}

func (in *inputChannel) push(item inItem) {
	if item.duplicate {
		in.duplicates++
	}
	in.queue.push(item)
}

// queued counts the items waiting in the queue that the sender's credits bound: all but
// duplicates.
func (in *inputChannel) queued() int { return in.queue.len() - in.duplicates }

// empty reports whether nothing waits to be consumed.
func (in *inputChannel) empty() bool { return len(in.replay) == 0 && in.queue.len() == 0 }

// head returns the next item to consume; the channel must not be empty.
func (in *inputChannel) head() inItem {
	if len(in.replay) > 0 {
		return inItem{records: in.replay[0]}
	}
	return in.queue.front()
}

// headIsEvent reports whether the next item to consume is an event; the channel must not
// be empty. Replayed channel state is all records.
func (in *inputChannel) headIsEvent() bool {
	return len(in.replay) == 0 && in.queue.front().records == nil
}

// pop removes the head and reports whether it is a network buffer that holds a credit to
// return (and a pooled array): not replayed channel state, an event or a duplicate.
func (in *inputChannel) pop() (item inItem, credited bool) {
	if len(in.replay) > 0 {
		item = inItem{records: in.replay[0]}
		in.replay[0] = nil
		in.replay = in.replay[1:]
		return item, false
	}
	item = in.queue.pop()
	if item.duplicate {
		in.duplicates--
		return item, false
	}
	return item, item.records != nil
}
