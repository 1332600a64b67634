package mutate

import (
	"fmt"
	"strings"
)

// Mutant is one small change to one file: the bytes [Start, End) of the file replaced by
// Replacement. Keeping the change as an edit of the text, not of the syntax tree, leaves the
// rest of the file byte for byte as written, so line numbers and comments survive and the
// mutated copy reads like the original in a diff.
type Mutant struct {
	// ID is stable while the file is unchanged: DIR/FILE:LINE:COL:OPERATOR.
	ID string `json:"id"`
	// Package is the folder of the file relative to the root, slash-separated ("protocol").
	Package string `json:"package"`
	// File is the file's path relative to the root, slash-separated.
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Operator string `json:"operator"`
	// Original is the source text replaced; Replacement is what replaces it.
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	Start       int    `json:"-"`
	End         int    `json:"-"`
}

// Apply returns src with the mutant's change made. It refuses a src whose bytes at the
// mutant's place are not the ones it was enumerated from: the file changed since.
func (m *Mutant) Apply(src []byte) ([]byte, error) {
	if m.End > len(src) || string(src[m.Start:m.End]) != m.Original {
		return nil, fmt.Errorf("mutate: %s: the file changed since the mutant was enumerated", m.ID)
	}
	out := make([]byte, 0, len(src)-len(m.Original)+len(m.Replacement))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Replacement...)
	return append(out, src[m.End:]...), nil
}

// Description is the mutant's one-line change: `before` -> `after`, long text cut short.
func (m *Mutant) Description() string {
	after := m.Replacement
	if after == "" {
		return "delete `" + oneLine(m.Original) + "`"
	}
	return "`" + oneLine(m.Original) + "` -> `" + oneLine(after) + "`"
}

// oneLine folds text onto one line and cuts it at 60 characters, so that a description
// stays one line whatever it quotes.
func oneLine(text string) string { return cut(text, 60) }

// cut folds text onto one line and cuts it at limit characters, "..." marking the cut.
func cut(text string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	if runes := []rune(text); len(runes) > limit {
		return string(runes[:limit-3]) + "..."
	}
	return text
}

// String is the mutant as a report lists it: its id and its change.
func (m *Mutant) String() string { return m.ID + " " + m.Description() }
