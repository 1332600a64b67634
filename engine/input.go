package engine

import "github.com/ckptsim/ckptsim/protocol"

// inputChannel is the receiving end of one channel: buffers and events in arrival order,
// waiting to be consumed. Its buffers are bounded by the credits the receiver granted, and
// its duplicates (the out-of-model data.duplicate fault), each of which trails its
// original, by the credits plus one. Events are not: a sender emits a bounded number per
// checkpoint, but a blocked channel can collect those of any number of checkpoints (a clog
// that held a burst of triggers to the sender releases them all at once). After a restore, the channel state recorded for the
// channel is replayed first, from its own queue, which holds no credits.
type inputChannel struct {
	from   string
	replay [][]rec
	queue  fifo[inItem]
	// recv counts records consumed from the channel since the job's start (restored from
	// the checkpoint, like outputChannel.sent).
	recv int64
	// ended is set once end of data or end of partition was delivered; dataEnded once end
	// of data was: the upstream task finished its input, rather than exited for a stop.
	ended, dataEnded bool
	// unannounced counts consumed network buffers whose credits the sender has not been
	// given back yet (returnCredit).
	unannounced int
	// duplicates counts the queued items that are duplicates (inItem.duplicate), buffers
	// those that hold a credit: records, not duplicated.
	duplicates, buffers int
}

type inItem struct {
	records []rec
	event   protocol.ChannelEvent // set when records is nil
	// duplicate marks records delivered a second time (bufferMsg.CopyMessage): they hold no
	// credit and no pooled array.
	duplicate bool
}

func (in *inputChannel) push(item inItem) {
	switch {
	case item.duplicate:
		in.duplicates++
	case item.records != nil:
		in.buffers++
	}
	in.queue.push(item)
}

// empty reports whether nothing waits to be consumed.
func (in *inputChannel) empty() bool { return len(in.replay) == 0 && in.queue.len() == 0 }

// recordsLeft reports whether records wait on the channel: replayed channel state, or
// buffers in its queue. Behind its end of data only events come.
func (in *inputChannel) recordsLeft() bool {
	if len(in.replay) > 0 {
		return true
	}
	for _, item := range in.queue.all() {
		if item.records != nil {
			return true
		}
	}
	return false
}

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
	if item.records != nil {
		in.buffers--
	}
	return item, item.records != nil
}
