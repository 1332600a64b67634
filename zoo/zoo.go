// Package zoo is the bug zoo: deliberate mistakes in the engine and the protocol, each kept
// as a unified diff (one *.diff file per bug in this folder) and never in the shipped code,
// plus what it takes to plant one: a patch applier and a build of a mutated simrun through
// `go build -overlay`, which compiles patched copies of the touched files from a temporary
// directory and leaves the source tree as it is.
//
// A zoo bug measures the harness: does the default sweep catch it, and how many seeds of
// its hunting ground does that take; and does the default sweep's generic part, generated
// scenarios that no one wrote for the bug, catch it too, and from which seed (simrun zoo). The diffs and the applier live in one
// package so that the binary carries the diffs (embedded) and needs nothing at run time but
// the source tree they patch and a Go toolchain: no patch(1), nothing outside the standard
// library, and no import of the code it patches.
//
// Each file starts with a header of "# key: value" lines, then the diff as git diff writes
// it:
//
//	# id: forget-channel-state
//	# flink: -
//	# planted: an unaligned snapshot leaves out the records it overtook
//	# property: consistent-cut
//	# ground: explicit-unaligned
//	--- a/engine/overtake.go
//	+++ b/engine/overtake.go
//	@@ -52,5 +52,3 @@
//	...
//
// A header may also name the rule of the specification the mistake breaks (rule, one of
// checker.Rules): such a bug is also a negative control of that rule. The folder controls/
// holds mutations written only as controls, for rules no bug reaches; each names its rule.
// simrun zoo -controls hunts both and counts a catch only by a violation of the rule.
//
// A bug replanted from Flink names its issue (flink) and the change that fixed it there
// (fix: a commit or pull request), and says in note how closely the replanting follows it.
// A Flink bug that ckptsim has no analogue for is kept too, so the zoo's table says so
// instead of planting something else: its file has id, flink, fix and absent (why there is
// nothing to plant), and no diff.
package zoo

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

//go:embed *.diff controls/*.diff
var diffs embed.FS

// Bug is one zoo entry.
type Bug struct {
	ID string
	// Flink is the Flink issue the bug replants ("FLINK-2427"), or "" for a classic
	// mistake of our own.
	Flink string
	// Planted says in one line what the diff does to the engine.
	Planted string
	// Property is the property expected to catch it, or "-" for a mistake that no property
	// names yet (its note says what would): the zoo keeps such a bug so that the table
	// shows the blind spot instead of hiding it.
	Property string
	// Rule is the rule of the specification (checker.Rules) the mistake breaks. A control
	// must name one, and is caught only by a violation of it.
	Rule string
	// Ground is the built-in scenario that hunts it: one whose job has the code path the
	// bug breaks.
	Ground string
	// Fix is the change that fixed the bug in Flink (a commit or a pull request).
	Fix string
	// Note is anything else the header says: for a Flink bug, how closely the replanting
	// follows the original.
	Note string
	// Absent, when set, says why ckptsim has no analogue of the Flink bug: nothing is
	// planted and the bug has no patches, property or ground.
	Absent  string
	Patches []FilePatch
}

// headerKeys are the header's fields. A planted bug requires id, planted, property and
// ground; an absent one requires id, flink and absent and has no diff.
var headerKeys = []string{"id", "flink", "fix", "planted", "property", "rule", "ground", "note", "absent"}

// Parse reads one zoo file. name is only for errors.
func Parse(name, text string) (*Bug, error) {
	lines := strings.Split(text, "\n")
	b := &Bug{}
	fields := map[string]string{}
	i := 0
	for ; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		key, value, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(lines[i], "#")), ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || !slices.Contains(headerKeys, key) {
			return nil, fmt.Errorf("zoo: %s: line %d: %q: a header line is \"# KEY: value\", KEY one of %s", name, i+1, lines[i], strings.Join(headerKeys, ", "))
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("zoo: %s: line %d: %s given twice", name, i+1, key)
		}
		fields[key] = value
	}
	required := []string{"id", "planted", "property", "ground"}
	if fields["absent"] != "" {
		required = []string{"id", "flink", "absent"}
	}
	for _, key := range required {
		if fields[key] == "" {
			return nil, fmt.Errorf("zoo: %s: the header has no %s", name, key)
		}
	}
	b.ID, b.Planted, b.Property, b.Ground = fields["id"], fields["planted"], fields["property"], fields["ground"]
	b.Fix, b.Note, b.Absent, b.Rule = fields["fix"], fields["note"], fields["absent"], fields["rule"]
	if f := fields["flink"]; f != "-" {
		b.Flink = f
	}
	patches, err := parsePatches(lines[i:])
	if err == nil && len(patches) == 0 && fields["absent"] == "" {
		err = fmt.Errorf("no --- line: not a unified diff (a bug with nothing to plant says why in absent)")
	}
	if err != nil {
		return nil, fmt.Errorf("zoo: %s: %v", name, err)
	}
	switch {
	case b.Absent != "" && (len(patches) > 0 || b.Planted != "" || b.Property != "" || b.Ground != ""):
		return nil, fmt.Errorf("zoo: %s: a bug without an analogue (absent) plants nothing: it has no diff, planted, property or ground", name)
	case b.Absent != "" && b.Flink == "":
		return nil, fmt.Errorf("zoo: %s: absent is for a Flink bug ckptsim has no analogue of, but flink is -", name)
	}
	b.Patches = patches
	return b, nil
}

// Bugs returns every zoo entry, in the order of their ids. A file that does not
// parse is a broken build of the zoo, so it panics.
func Bugs() []*Bug { return load("*.diff") }

// Controls returns the negative controls of the specification's rules (controls/*.diff),
// in the order of their ids. Each names the rule it breaks.
func Controls() []*Bug {
	controls := load("controls/*.diff")
	for _, c := range controls {
		if c.Rule == "" || c.Absent != "" {
			panic(fmt.Sprintf("zoo: control %s: a control plants a mutation and names the rule it breaks", c.ID))
		}
	}
	return controls
}

func load(pattern string) []*Bug {
	names, err := fs.Glob(diffs, pattern)
	if err != nil {
		panic(err)
	}
	slices.Sort(names)
	var out []*Bug
	for _, name := range names {
		data, err := diffs.ReadFile(name)
		if err != nil {
			panic(err)
		}
		b, err := Parse(name, string(data))
		if err != nil {
			panic(err)
		}
		if want := strings.TrimSuffix(path.Base(name), ".diff"); !strings.HasSuffix(want, b.ID) {
			panic(fmt.Sprintf("zoo: %s holds bug %q: the file name must end with its id", name, b.ID))
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(x, y *Bug) int { return strings.Compare(x.ID, y.ID) })
	return out
}

// Lookup returns the bug or control with id, or an error that lists the ids.
func Lookup(id string) (*Bug, error) {
	var ids []string
	for _, b := range append(Bugs(), Controls()...) {
		if b.ID == id {
			return b, nil
		}
		ids = append(ids, b.ID)
	}
	return nil, fmt.Errorf("zoo: no bug %q (the zoo has %s)", id, strings.Join(ids, ", "))
}
