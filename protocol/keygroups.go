package protocol

import "fmt"

// Key groups, as Flink's KeyGroupRangeAssignment defines them: the unit keyed state is
// partitioned, snapshotted and redistributed in. A job has MaxParallelism key groups; a key
// belongs to the group its hash falls in, and an operator of parallelism p owns the groups
// of one contiguous range per task. Rescaling a restored job changes p and so the ranges,
// never a key's group: a task of the new job takes the keyed state of its range from
// whichever tasks of the old job held those groups.

// MaxKeyGroups is the most key groups a job may have (Flink's upper bound on the maximum
// parallelism, 2^15).
const MaxKeyGroups = 1 << 15

// KeyGroupRange is the key groups First to Last, both included.
type KeyGroupRange struct {
	First, Last int
}

// Contains reports whether key group g is in r.
func (r KeyGroupRange) Contains(g int) bool { return r.First <= g && g <= r.Last }

// String renders "first-last".
func (r KeyGroupRange) String() string { return fmt.Sprintf("%d-%d", r.First, r.Last) }

// checkKeyGroups panics unless 1 <= parallelism <= maxParallelism <= MaxKeyGroups: a host
// validates its job before it asks.
func checkKeyGroups(maxParallelism, parallelism int) {
	if parallelism < 1 || parallelism > maxParallelism || maxParallelism > MaxKeyGroups {
		assertionFailed("key groups", fmt.Sprintf("parallelism %d, max parallelism %d (1 <= parallelism <= max <= %d)", parallelism, maxParallelism, MaxKeyGroups))
	}
}

// KeyGroupOf returns the key group of a key whose hash is keyHash, out of maxParallelism.
// The hash is the host's (Flink mixes the key's hashCode with murmur first); any hash
// spread evenly over the uint64s serves.
func KeyGroupOf(keyHash uint64, maxParallelism int) int {
	checkKeyGroups(maxParallelism, 1)
	return int(keyHash % uint64(maxParallelism))
}

// OperatorIndexOf returns the index of the task, out of parallelism, that owns key group g.
func OperatorIndexOf(g, maxParallelism, parallelism int) int {
	checkKeyGroups(maxParallelism, parallelism)
	return g * parallelism / maxParallelism
}

// KeyGroupRangeOf returns the key groups the task at index owns, out of parallelism:
// exactly those whose OperatorIndexOf is index.
func KeyGroupRangeOf(index, maxParallelism, parallelism int) KeyGroupRange {
	checkKeyGroups(maxParallelism, parallelism)
	return KeyGroupRange{
		First: (index*maxParallelism + parallelism - 1) / parallelism,
		Last:  ((index+1)*maxParallelism - 1) / parallelism,
	}
}

// RescaledFrom returns, for each task of an operator rescaled from parallelism from to to,
// the indices of the old tasks whose key groups it takes over, in ascending order: those
// whose range overlaps its own.
func RescaledFrom(maxParallelism, from, to int) [][]int {
	checkKeyGroups(maxParallelism, from)
	checkKeyGroups(maxParallelism, to)
	out := make([][]int, to)
	for i := range to {
		r := KeyGroupRangeOf(i, maxParallelism, to)
		for j := OperatorIndexOf(r.First, maxParallelism, from); j <= OperatorIndexOf(r.Last, maxParallelism, from); j++ {
			out[i] = append(out[i], j)
		}
	}
	return out
}
