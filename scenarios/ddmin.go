package scenarios

// ddmin returns a smaller sublist of items for which fails still holds, by delta debugging
// (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input", 2002): split
// the list into n chunks, keep a chunk alone or drop one if the failure survives, and refine
// n until no single chunk can go. The order of items is kept. fails is called only on proper
// sublists; it returns false once its budget is spent, which ends the search early.
func ddmin[T any](items []T, fails func([]T) bool) []T {
	if len(items) == 0 {
		return items
	}
	if fails(nil) {
		return nil
	}
	n := 2
	for len(items) >= 2 {
		chunks := splitChunks(items, n)
		reduced := false
		for i := range chunks {
			if fails(chunks[i]) {
				items, n, reduced = chunks[i], 2, true
				break
			}
		}
		// With two chunks, dropping one is keeping the other, which was just tried.
		if !reduced && n > 2 {
			for i := range chunks {
				if rest := withoutChunk(chunks, i); fails(rest) {
					items, n, reduced = rest, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(items) {
				break
			}
			n = min(2*n, len(items))
		}
	}
	return items
}

// splitChunks cuts items into n nearly equal consecutive chunks (n <= len(items)).
func splitChunks[T any](items []T, n int) [][]T {
	n = min(n, len(items))
	chunks := make([][]T, 0, n)
	start := 0
	for i := range n {
		end := start + (len(items)-start)/(n-i)
		chunks = append(chunks, items[start:end:end])
		start = end
	}
	return chunks
}

func withoutChunk[T any](chunks [][]T, skip int) []T {
	var rest []T
	for i, c := range chunks {
		if i != skip {
			rest = append(rest, c...)
		}
	}
	return rest
}
