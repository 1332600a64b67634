package trace

import (
	"crypto/sha256"
	"hash"
	"runtime"
	"sync"
)

// chunkHasher feeds the Recorder's chunks of lines into the trace hash, in order.
//
// SHA-256 costs about as much as encoding the lines, and it is the one part of recording
// that need not happen on the simulation's goroutine. So when the process may run more than
// one goroutine at a time, each full chunk is hashed on a goroutine started for that chunk,
// while the Recorder encodes the next one into a second buffer. The pipeline is one deep:
// before a chunk is handed over, the one before it has been hashed. So
//   - the hash is over the chunks in the order they were handed over, whatever the timing:
//     the same bytes as hashing each line in turn, as SHA-256 over a concatenation does not
//     depend on where it is cut;
//   - a buffer is reused only after its goroutine is done with it, and the hash state is
//     touched by one goroutine at a time, the WaitGroup ordering each hand-over;
//   - no goroutine outlives the chunk it hashes: a Recorder dropped without Hash or Flush
//     leaves at most one running, for as long as one chunk takes, and nothing to stop.
//
// Hash and Flush hash what is left on the caller's goroutine, after the one in flight.
type chunkHasher struct {
	hash     hash.Hash
	parallel bool           // hash full chunks on a goroutine of their own
	busy     sync.WaitGroup // counts the goroutine hashing inFlight, if any
	inFlight []byte         // the chunk being (or last) hashed on a goroutine; its buffer is reused after
}

func newChunkHasher() chunkHasher {
	// With one processor a second goroutine would only take turns with the simulation.
	return chunkHasher{hash: sha256.New(), parallel: runtime.GOMAXPROCS(0) > 1}
}

// handOver starts hashing chunk and returns an empty buffer for the next one. The caller may
// read chunk (to write it out) but not change it.
func (h *chunkHasher) handOver(chunk []byte) []byte {
	h.busy.Wait()
	if !h.parallel {
		h.hash.Write(chunk)
		return chunk[:0]
	}
	next := h.inFlight[:0]
	h.inFlight = chunk
	h.busy.Go(func() { h.hashChunk(chunk) })
	return next
}

// hashChunk runs on the chunk's own goroutine.
func (h *chunkHasher) hashChunk(chunk []byte) { h.hash.Write(chunk) }

// writeNow hashes lines on the caller's goroutine, after any chunk in flight.
func (h *chunkHasher) writeNow(lines []byte) {
	h.busy.Wait()
	h.hash.Write(lines)
}

// sum returns the hash of everything handed over and written so far.
func (h *chunkHasher) sum() [sha256.Size]byte {
	h.busy.Wait()
	var sum [sha256.Size]byte
	h.hash.Sum(sum[:0])
	return sum
}
