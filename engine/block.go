package engine

// block hands out values of T cut from arrays of blockSize: one allocation per block
// instead of one per value, for the messages that every buffer and barrier needs. A value
// is never handed out twice; a block is garbage once none of its values is referenced,
// which for messages, short-lived by nature, comes soon.
type block[T any] []T

const blockSize = 64

// next returns a pointer to a new zero T.
func (b *block[T]) next() *T {
	if len(*b) == 0 {
		*b = make([]T, blockSize)
	}
	v := &(*b)[0]
	*b = (*b)[1:]
	return v
}
