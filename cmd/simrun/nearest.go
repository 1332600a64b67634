package main

// nearest returns the candidate closest to word by edit distance, if it is close enough to
// be what was meant (at most a third of the word's letters off, and at least one), else "".
// A typo gets a suggestion; a different word does not.
func nearest(word string, candidates []string) string {
	best, bestDistance := "", max(1, len(word)/3)+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestDistance {
			best, bestDistance = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes (names here are ASCII).
func editDistance(a, b string) int {
	previous := make([]int, len(b)+1)
	current := make([]int, len(b)+1)
	for j := range previous {
		previous[j] = j
	}
	for i := 1; i <= len(a); i++ {
		current[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			current[j] = min(previous[j]+1, current[j-1]+1, previous[j-1]+cost)
		}
		previous, current = current, previous
	}
	return previous[len(b)]
}

// didYouMean is ` (did you mean "X"?)` for the nearest candidate, or "".
func didYouMean(word string, candidates []string) string {
	if n := nearest(word, candidates); n != "" {
		return ` (did you mean "` + n + `"?)`
	}
	return ""
}
