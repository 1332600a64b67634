package protocol

// Outputs collect in the slices of the pending TaskReady or CoordinatorReady
// until Ready hands them to the host, which then owns them. Growing each
// from nil cost an allocation per field per Ready, more while append doubled
// its way up, and on a busy job that was most of what the protocol
// allocated. So the outputs of consecutive Readys are laid out one after the
// other in a shared chunk: Ready hands out the part filled since the last
// Ready, its capacity clipped so that an append by the host cannot reach into
// the rest, and later outputs go into the rest.
//
// Why not simply reuse one buffer per field, as etcd raft lets a host do
// after Advance: memory handed out here is never written again, so the host
// may keep it, change it, or take the next Ready while it still walks this
// one, as the package documentation has always allowed ("every output slice
// handed to the host belongs to the host"). The engine relies on the last:
// when its storage completes a snapshot's write synchronously, the ack that
// follows makes it handle the next Ready (snapshotSettled) while it is still
// walking the one that asked for the snapshot. A reused buffer would be
// overwritten under it; a chunk is not.

const (
	// outboxChunk is the fewest outputs of one kind a fresh chunk holds.
	outboxChunk = 16
	// outboxBatches: a fresh chunk holds this many batches like the one
	// that asked for it (a coordinator's broadcast to 24 tasks gets a chunk
	// for four of them; a task's single ack, one for sixteen).
	outboxBatches = 4
	// outboxLarge is the biggest batch a shared chunk is made for. A bigger
	// one (a broadcast to thousands of tasks) is allocated to size and left
	// to the host whole: keeping its unused tail for later outputs would
	// keep the whole array alive for a few elements.
	outboxLarge = 128
)

// grow makes room for n more outputs after those in s. When a chunk runs
// out, the outputs gathered since the last Ready move to a new one (the
// copies they leave behind were never handed out, so nobody sees the move).
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	need := len(s) + n
	size := max(outboxChunk, outboxBatches*need)
	if need > outboxLarge {
		size = max(need, 2*len(s))
	}
	moved := make([]T, len(s), size)
	copy(moved, s)
	return moved
}

// push appends v to the outputs in s.
func push[T any](s []T, v T) []T { return append(grow(s, 1), v) }

// handOut returns the outputs gathered in *pending for the host, nil if there
// are none (as a Ready that allocated from nil would), and leaves *pending
// empty with whatever room its chunk has left.
func handOut[T any](pending *[]T) []T {
	out := *pending
	n := len(out)
	if n == 0 {
		return nil
	}
	if cap(out) > n && cap(out) <= outboxBatches*outboxLarge {
		*pending = out[n:n]
	} else {
		*pending = nil
	}
	return out[:n:n]
}

// handOutAlone is handOut for outputs that hold a checkpoint's task states
// (CompletedCheckpoint): they are appended from nil and their array is not
// kept for later outputs, because a shared chunk would keep the states of
// every checkpoint handed out from it alive for as long as its unused part
// waited, megabytes at a job of thousands of tasks. One allocation per
// checkpoint is the cheaper price.
func handOutAlone[T any](pending *[]T) []T {
	out := *pending
	*pending = nil
	if len(out) == 0 {
		return nil
	}
	return out
}

// carve returns n elements of *chunk for a result its caller will own (the
// same idea outside a Ready: a two-phase commit's pending list and actions),
// taking a new chunk when *chunk holds too few.
func carve[T any](chunk *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	if n > outboxLarge {
		return make([]T, n)
	}
	if n > len(*chunk) {
		*chunk = make([]T, max(outboxChunk, outboxBatches*n))
	}
	out := (*chunk)[:n:n]
	*chunk = (*chunk)[n:]
	return out
}
