package chandylamport

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func TestNewGraphRejects(t *testing.T) {
	for _, tc := range []struct {
		name      string
		processes []ProcessID
		channels  []Channel
		want      error
	}{
		{"self-loop", []ProcessID{"a"}, []Channel{{"a", "a"}}, ErrBadGraph},
		{"process twice", []ProcessID{"a", "a"}, nil, ErrBadGraph},
		{"channel twice", []ProcessID{"a", "b"}, []Channel{{"a", "b"}, {"a", "b"}}, ErrBadGraph},
		{"unknown sender", []ProcessID{"b"}, []Channel{{"a", "b"}}, ErrBadGraph},
		{"unknown receiver", []ProcessID{"a"}, []Channel{{"a", "b"}}, ErrBadGraph},
		{"bad name", []ProcessID{"a#"}, nil, ErrBadName},
		{"empty name", []ProcessID{""}, nil, ErrBadName},
	} {
		if _, err := NewGraph(tc.processes, tc.channels); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestGraphNeighboursAreSortedCopies(t *testing.T) {
	g, err := NewGraph([]ProcessID{"c", "a", "b"}, []Channel{{"c", "a"}, {"b", "a"}, {"a", "c"}, {"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Inputs("a"); !slices.Equal(got, []ProcessID{"b", "c"}) {
		t.Fatalf("Inputs(a) = %v", got)
	}
	if got := g.Outputs("a"); !slices.Equal(got, []ProcessID{"b", "c"}) {
		t.Fatalf("Outputs(a) = %v", got)
	}
	if got := fmt.Sprint(g.Channels()); got != "[a->b a->c b->a c->a]" {
		t.Fatalf("Channels() = %s", got)
	}
	g.Inputs("a")[0] = "z"
	g.Processes()[0] = "z"
	if g.Inputs("a")[0] != "b" || g.Processes()[0] != "a" {
		t.Fatal("a caller changed the graph through a returned slice")
	}
	if g.Inputs("nobody") != nil || g.Joiners("nobody") != nil || g.Has("nobody") {
		t.Fatal("an unknown process has neighbours")
	}
}

// TestJoinersIsSmallestCover checks Graph.Joiners against brute force on random graphs:
// origin plus the joiners reach every process, no joiner is reachable from origin, and no
// smaller set of processes does the job (found by trying every subset).
func TestJoinersIsSmallestCover(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(t, "processes")
		var names []ProcessID
		for i := range n {
			names = append(names, ProcessID(fmt.Sprintf("p%d", i)))
		}
		var channels []Channel
		for _, from := range names {
			for _, to := range names {
				if from != to && rapid.IntRange(0, 3).Draw(t, "channel "+string(from)+"->"+string(to)) == 0 {
					channels = append(channels, Channel{from, to})
				}
			}
		}
		g, err := NewGraph(names, channels)
		if err != nil {
			t.Fatal(err)
		}
		origin := names[rapid.IntRange(0, n-1).Draw(t, "origin")]
		joiners := g.Joiners(origin)
		covers := func(starts []ProcessID) bool {
			seen := map[ProcessID]bool{}
			for _, s := range starts {
				for p := range g.reach(s) {
					seen[p] = true
				}
			}
			return len(seen) == n
		}
		if !covers(append([]ProcessID{origin}, joiners...)) {
			t.Fatalf("origin %s with joiners %v does not reach every process of %v", origin, joiners, channels)
		}
		for _, j := range joiners {
			if j == origin || g.reach(origin)[j] {
				t.Fatalf("joiner %s is reached from origin %s anyway", j, origin)
			}
		}
		if !slices.IsSorted(joiners) {
			t.Fatalf("joiners %v are not sorted", joiners)
		}
		for mask := 0; mask < 1<<n; mask++ {
			var subset []ProcessID
			for i, p := range names {
				if mask&(1<<i) != 0 {
					subset = append(subset, p)
				}
			}
			if len(subset) < len(joiners) && covers(append([]ProcessID{origin}, subset...)) {
				t.Fatalf("joiners %v, but %v also reaches everything with origin %s", joiners, subset, origin)
			}
		}
	})
}

// TestRenderings pins the text forms that traces and golden files rely on.
func TestRenderings(t *testing.T) {
	id := SnapshotID{Origin: "src", Seq: 12}
	for _, tc := range []struct {
		value fmt.Stringer
		want  string
	}{
		{id, "src#12"},
		{Channel{"a", "b"}, "a->b"},
		{Marker{Snapshot: id, Channel: Channel{"a", "b"}}, "marker src#12 a->b"},
		{RecordState{Snapshot: id, Process: "b"}, "record-state src#12 at b"},
		{Report[int, string]{Snapshot: id, Process: "b", State: 4, Channels: []ChannelState[string]{{Channel{"a", "b"}, nil}, {Channel{"c", "b"}, []string{"x", "y"}}}},
			"report src#12 by b: state=4 a->b=[] c->b=[x y]"},
		{Abort{Snapshot: id, Process: "b", Channel: Channel{"a", "b"}, Limit: 3}, "abort src#12 by b: a->b recorded over 3 messages"},
		{GlobalSnapshot[int, int]{ID: id, States: []ProcessState[int]{{"a", 1}}, Channels: []ChannelState[int]{{Channel{"a", "b"}, []int{5}}}},
			"snapshot src#12\n  a: 1\n  a->b=[5]"},
		{StatusAborted, "aborted"},
		{Status(9), "Status(9)"},
	} {
		if got := tc.value.String(); got != tc.want {
			t.Errorf("%T renders %q, want %q", tc.value, got, tc.want)
		}
	}
}
