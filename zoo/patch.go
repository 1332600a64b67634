package zoo

import (
	"fmt"
	"strconv"
	"strings"
)

// FilePatch is the change a diff makes to one file: its path relative to the module root
// and its hunks in order.
type FilePatch struct {
	Path  string
	Hunks []Hunk
}

// Hunk is one "@@ -a,b +c,d @@" section: the lines it expects (context and removals, in
// order) and the lines it leaves (context and additions). OldStart is the 1-based line the
// diff says the old lines start at; the applier looks there first.
type Hunk struct {
	Header   string
	OldStart int
	Old, New []string
}

// parsePatches reads the file sections of a unified diff, as git diff writes them. Lines
// before the first "--- " are not its business (the caller reads the header there), and
// "diff --git" and "index" lines are skipped.
func parsePatches(lines []string) ([]FilePatch, error) {
	var patches []FilePatch
	var cur *FilePatch
	var hunk *Hunk
	oldLeft, newLeft := 0, 0
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if hunk != nil && (oldLeft > 0 || newLeft > 0) {
			switch {
			case strings.HasPrefix(line, " ") || line == "":
				text := strings.TrimPrefix(line, " ")
				hunk.Old = append(hunk.Old, text)
				hunk.New = append(hunk.New, text)
				oldLeft--
				newLeft--
			case strings.HasPrefix(line, "-"):
				hunk.Old = append(hunk.Old, line[1:])
				oldLeft--
			case strings.HasPrefix(line, "+"):
				hunk.New = append(hunk.New, line[1:])
				newLeft--
			default:
				return nil, fmt.Errorf("line %d: %q inside hunk %q, which wants %d more old and %d more new lines", i+1, line, hunk.Header, oldLeft, newLeft)
			}
			if oldLeft < 0 || newLeft < 0 {
				return nil, fmt.Errorf("line %d: hunk %q has more lines than its header counts", i+1, hunk.Header)
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, `\ No newline`):
		case strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "):
		case strings.HasPrefix(line, "--- "):
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
				return nil, fmt.Errorf("line %d: %q is not followed by a +++ line", i+1, line)
			}
			path := strings.TrimPrefix(strings.TrimSpace(lines[i+1][4:]), "b/")
			if path == "" || path == "/dev/null" || strings.HasPrefix(path, "/") || strings.Contains(path, "..") {
				return nil, fmt.Errorf("line %d: %q: the zoo patches existing files inside the module only", i+2, lines[i+1])
			}
			patches = append(patches, FilePatch{Path: path})
			cur = &patches[len(patches)-1]
			hunk = nil
			i++
		case strings.HasPrefix(line, "@@ "):
			if cur == nil {
				return nil, fmt.Errorf("line %d: hunk before any --- line", i+1)
			}
			h, o, n, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			cur.Hunks = append(cur.Hunks, h)
			hunk = &cur.Hunks[len(cur.Hunks)-1]
			oldLeft, newLeft = o, n
		case strings.TrimSpace(line) == "":
		default:
			return nil, fmt.Errorf("line %d: %q is not part of a unified diff", i+1, line)
		}
	}
	if hunk != nil && (oldLeft > 0 || newLeft > 0) {
		return nil, fmt.Errorf("hunk %q ends early: %d old and %d new lines missing", hunk.Header, oldLeft, newLeft)
	}
	for _, p := range patches {
		if len(p.Hunks) == 0 {
			return nil, fmt.Errorf("%s: no hunks", p.Path)
		}
	}
	return patches, nil
}

// parseHunkHeader reads "@@ -a,b +c,d @@ ..." (a count may be left out, meaning 1).
func parseHunkHeader(line string) (h Hunk, oldCount, newCount int, err error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[3] != "@@" || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return h, 0, 0, fmt.Errorf("%q is not a hunk header", line)
	}
	start, oldCount, err1 := parseRange(fields[1][1:])
	_, newCount, err2 := parseRange(fields[2][1:])
	if err1 != nil || err2 != nil {
		return h, 0, 0, fmt.Errorf("%q is not a hunk header", line)
	}
	return Hunk{Header: strings.Join(fields[:4], " "), OldStart: start}, oldCount, newCount, nil
}

func parseRange(s string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		count, err = strconv.Atoi(b)
	}
	return start, count, err
}

// Apply returns src with p's hunks applied. Each hunk's old lines must appear exactly
// (context and removals, whitespace included); the applier looks first where the header
// says, shifted by what earlier hunks added or removed, then anywhere after the previous
// hunk, where it must stand exactly once: short blocks of Go repeat (an error check, a
// closing brace), and a hunk whose place moved must not be planted in another function. A
// hunk found nowhere, or in more than one place, is an error that names the file, the hunk
// and its first line of context: the diff is stale, written against code that has since
// changed.
func (p FilePatch) Apply(src string) (string, error) {
	lines := strings.Split(src, "\n")
	shift := 0
	from := 0 // hunks apply in order and never overlap
	for n, h := range p.Hunks {
		at, places := findBlock(lines, h.Old, h.OldStart-1+shift, from)
		if places != 1 {
			first := ""
			if len(h.Old) > 0 {
				first = strings.TrimSpace(h.Old[0])
			}
			where := "the code it expects is not in the file"
			if places > 1 {
				where = fmt.Sprintf("its line moved, and the code it expects stands in %d places", places)
			}
			return "", fmt.Errorf("%s: hunk %d (%s, starting %q) does not apply: %s, so the diff is stale; rewrite it against the current source", p.Path, n+1, h.Header, first, where)
		}
		rest := append([]string(nil), lines[at+len(h.Old):]...)
		lines = append(append(lines[:at], h.New...), rest...)
		from = at + len(h.New)
		shift += len(h.New) - len(h.Old)
	}
	return strings.Join(lines, "\n"), nil
}

// findBlock returns where block starts in lines, at or after from, and in how many places it
// could: want itself if it matches there (one place), else the only match after from.
func findBlock(lines, block []string, want, from int) (at, places int) {
	matches := func(at int) bool {
		if at < from || at+len(block) > len(lines) {
			return false
		}
		for i, l := range block {
			if lines[at+i] != l {
				return false
			}
		}
		return true
	}
	if matches(want) {
		return want, 1
	}
	at = -1
	for i := from; i+len(block) <= len(lines); i++ {
		if matches(i) {
			if places == 0 {
				at = i
			}
			places++
		}
	}
	return at, places
}
