package engine

// bufferPool keeps the record arrays of network buffers for reuse. An output channel fills
// a buffer in an array of BufferRecords taken from the pool; sealing the buffer hands that
// very array to the network (no copy), and the receiving task gives it back once it has
// consumed the buffer. Every record thus crosses a channel without an allocation, and the
// arrays in use are those of buffers being filled, in flight or queued at receivers.
//
// A buffer's array must be reachable from nowhere else by the time it is given back, or a
// later buffer would overwrite records someone still reads. That holds because:
//   - a sealed buffer lives in exactly one place at a time: the sender's queue, then one
//     bufferMsg in the network (Receive takes the records out of the message, so a message
//     delivered a second time is caught: it panics), then the receiver's input queue;
//   - an Env that duplicates messages (the simulator's out-of-model duplicate filter)
//     delivers a copy made by bufferMsg.CopyMessage, with its own array;
//   - whatever outlives consumption copies the records: channel state for snapshots
//     (recordChannelState, tryOvertake, sendPriority) and the outputs the operator feeds;
//   - only buffers that came from the network are given back (inputChannel.pop's
//     credited), not restored channel state, and only by task.consume, after process.
//
// Arrays lost with a crashed task or a dropped message are simply garbage.
type bufferPool struct {
	size int     // records per array: Network.BufferRecords
	free [][]rec // arrays of capacity size, empty, ready to fill
}

// maxFreeBuffers bounds the arrays the pool keeps: beyond it, returned arrays are left to
// the garbage collector. A job's arrays in use are bounded by its channels' credits and
// queues, so the pool rarely grows near it; the bound only caps what a burst leaves behind.
const maxFreeBuffers = 1024

// get returns an empty array of capacity size.
func (p *bufferPool) get() []rec {
	if n := len(p.free); n > 0 {
		buf := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return buf
	}
	return make([]rec, 0, p.size)
}

// put gives back an array whose records nothing reads any more.
func (p *bufferPool) put(buf []rec) {
	if cap(buf) != p.size || len(p.free) >= maxFreeBuffers {
		return
	}
	p.free = append(p.free, buf[:0])
}
