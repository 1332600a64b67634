package chandylamport

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// ProcessID names a process (a node of the graph). Names appear in every rendered output and
// golden file, so they must be non-empty and free of whitespace, "#" and "->", which the text
// forms of snapshot ids and channels use as separators.
type ProcessID string

// validate reports why p cannot name a process, or nil.
func (p ProcessID) validate() error {
	switch {
	case p == "":
		return fmt.Errorf("%w: empty process name", ErrBadName)
	case strings.ContainsAny(string(p), " \t\r\n#"):
		return fmt.Errorf("%w: process name %q holds whitespace or '#'", ErrBadName, p)
	case strings.Contains(string(p), "->"):
		return fmt.Errorf("%w: process name %q holds \"->\"", ErrBadName, p)
	}
	return nil
}

// SnapshotID names one snapshot. The origin allocates Seq from its own counter (1, 2, 3, ...
// in Process.Initiate), so ids are unique without any coordination: no two processes share an
// Origin, and one origin never reuses a Seq. Every process relies on one more property of
// these ids to tell a duplicate marker from a new snapshot: the snapshots of one origin are
// first recorded in increasing Seq order at every process (FIFO channels give this for free;
// Process.Join documents what the host must do to keep it).
type SnapshotID struct {
	Origin ProcessID
	Seq    uint64
}

// String renders the id as origin#seq, for example "a#3".
func (id SnapshotID) String() string {
	return string(id.Origin) + "#" + strconv.FormatUint(id.Seq, 10)
}

// compareSnapshotIDs orders ids by origin, then by sequence number: the order of every list
// of ids this package returns.
func compareSnapshotIDs(a, b SnapshotID) int {
	if c := cmp.Compare(a.Origin, b.Origin); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// Channel is a directed, FIFO link from one process to another. A channel carries both the
// application's messages and this package's markers, in one order.
type Channel struct {
	From ProcessID
	To   ProcessID
}

// String renders the channel as from->to, for example "a->b".
func (c Channel) String() string {
	return string(c.From) + "->" + string(c.To)
}

// compareChannels orders channels by sender, then by receiver.
func compareChannels(a, b Channel) int {
	if c := cmp.Compare(a.From, b.From); c != 0 {
		return c
	}
	return cmp.Compare(a.To, b.To)
}

// compareProcessIDs orders process names bytewise.
func compareProcessIDs(a, b ProcessID) int { return cmp.Compare(a, b) }
