package mutate

import (
	_ "embed"
	"fmt"
	"strings"
)

// equivalentText is equivalent.txt: the mutants judged equivalent to the original program,
// one a line, "ID reason", with # comments.
//
//go:embed equivalent.txt
var equivalentText string

// Equivalents returns the mutants marked equivalent, id to reason. An equivalent mutant
// changes nothing a run of a correct host can show (a bound no input reaches, a check that
// a later one repeats, a string no trace holds) or only what the contract leaves free (a
// source's pace), so no rule may fault it; it is reported as equivalent, not as a survivor.
func Equivalents() map[string]string {
	marks, err := ParseEquivalents(equivalentText)
	if err != nil {
		panic(err) // a test reads the embedded file, so a malformed one never ships
	}
	return marks
}

// ParseEquivalents reads the lines of an equivalents file: "ID reason" each, blank lines
// and # comments skipped. A line without a reason is an error: the reason is the review.
func ParseEquivalents(text string) (map[string]string, error) {
	marks := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" || strings.Count(id, ":") != 3 {
			return nil, fmt.Errorf("mutate: equivalent.txt:%d: want \"DIR/FILE:LINE:COL:OPERATOR reason\", got %q", i+1, line)
		}
		if _, dup := marks[id]; dup {
			return nil, fmt.Errorf("mutate: equivalent.txt:%d: %s is marked twice", i+1, id)
		}
		marks[id] = strings.TrimSpace(reason)
	}
	return marks, nil
}
