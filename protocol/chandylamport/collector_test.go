package chandylamport

import (
	"errors"
	"slices"
	"testing"
)

// collectorFixture is the graph a->b, b->a, c (isolated) with a collector over it.
func collectorFixture(t *testing.T) *Collector[int, string] {
	t.Helper()
	g, err := NewGraph([]ProcessID{"c", "b", "a"}, []Channel{{"b", "a"}, {"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCollector[int, string](g, 2)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func report(id SnapshotID, p ProcessID, state int, channels ...ChannelState[string]) Report[int, string] {
	return Report[int, string]{Snapshot: id, Process: p, State: state, Channels: channels}
}

func TestCollectorAssemblesSnapshot(t *testing.T) {
	c := collectorFixture(t)
	id := SnapshotID{Origin: "a", Seq: 1}
	if err := c.Start(id); err != nil {
		t.Fatal(err)
	}
	answers := []Report[int, string]{
		report(id, "c", 3),
		report(id, "b", 2, ChannelState[string]{Channel{"a", "b"}, []string{"x", "y"}}),
		report(id, "a", 1, ChannelState[string]{Channel{"b", "a"}, nil}),
	}
	for i, r := range answers {
		g, complete, err := c.AddReport(r)
		if err != nil {
			t.Fatal(err)
		}
		if complete != (i == len(answers)-1) {
			t.Fatalf("after %d of %d reports complete=%v", i+1, len(answers), complete)
		}
		if !complete {
			if c.Status(id) != StatusPending {
				t.Fatalf("status %v, want pending", c.Status(id))
			}
			continue
		}
		want := "snapshot a#1\n  a: 1\n  b: 2\n  c: 3\n  a->b=[x y]\n  b->a=[]"
		if g.String() != want {
			t.Fatalf("assembled\n%s\nwant\n%s", g, want)
		}
		if s, ok := g.State("b"); !ok || s != 2 {
			t.Fatalf("State(b) = %v, %v", s, ok)
		}
		if _, ok := g.State("z"); ok {
			t.Fatal("State(z) found a process that does not exist")
		}
		if m, ok := g.InFlight(Channel{"a", "b"}); !ok || !slices.Equal(m, []string{"x", "y"}) {
			t.Fatalf("InFlight(a->b) = %v, %v", m, ok)
		}
		if _, ok := g.InFlight(Channel{"c", "a"}); ok {
			t.Fatal("InFlight(c->a) found a channel that does not exist")
		}
	}
	if c.Status(id) != StatusUnknown || len(c.Pending()) != 0 {
		t.Fatal("a completed snapshot should be forgotten")
	}
	if _, _, err := c.AddReport(answers[0]); !errors.Is(err, ErrUnknownSnapshot) {
		t.Fatalf("a report after completion: %v, want ErrUnknownSnapshot", err)
	}
}

func TestCollectorRejectsBadAnswers(t *testing.T) {
	c := collectorFixture(t)
	id := SnapshotID{Origin: "a", Seq: 1}
	other := SnapshotID{Origin: "b", Seq: 1}
	if err := c.Start(id); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(id); !errors.Is(err, ErrDuplicateSnapshot) {
		t.Fatalf("Start twice: %v", err)
	}
	if _, _, err := c.AddReport(report(id, "c", 0)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		report Report[int, string]
		want   error
	}{
		{"twice", report(id, "c", 0), ErrDuplicateReport},
		{"unknown process", report(id, "z", 0), ErrUnknownProcess},
		{"unknown snapshot", report(other, "a", 0, ChannelState[string]{Channel: Channel{"b", "a"}}), ErrUnknownSnapshot},
		{"missing channel", report(id, "a", 0), ErrBadReport},
		{"wrong channel", report(id, "a", 0, ChannelState[string]{Channel: Channel{"a", "b"}}), ErrBadReport},
		{"extra channel", report(id, "a", 0, ChannelState[string]{Channel: Channel{"b", "a"}}, ChannelState[string]{Channel: Channel{"c", "a"}}), ErrBadReport},
	} {
		if _, _, err := c.AddReport(tc.report); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := c.AddAbort(Abort{Snapshot: id, Process: "c"}); !errors.Is(err, ErrDuplicateReport) {
		t.Fatalf("abort after report: %v", err)
	}
	if err := c.AddAbort(Abort{Snapshot: other, Process: "c"}); !errors.Is(err, ErrUnknownSnapshot) {
		t.Fatalf("abort of unknown snapshot: %v", err)
	}
	if c.Status(id) != StatusPending {
		t.Fatalf("refused answers changed the status to %v", c.Status(id))
	}
}

func TestCollectorAbortWaitsForEveryAnswer(t *testing.T) {
	c := collectorFixture(t)
	id := SnapshotID{Origin: "a", Seq: 1}
	if err := c.Start(id); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(SnapshotID{Origin: "b", Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if !c.Full() {
		t.Fatal("two snapshots held with limit 2, but not full")
	}
	if err := c.Start(SnapshotID{Origin: "c", Seq: 1}); !errors.Is(err, ErrTooManySnapshots) {
		t.Fatalf("third Start: %v", err)
	}
	if err := c.AddAbort(Abort{Snapshot: id, Process: "a", Channel: Channel{"b", "a"}, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if c.Status(id) != StatusAborted {
		t.Fatalf("status %v, want aborted", c.Status(id))
	}
	if err := c.AddAbort(Abort{Snapshot: id, Process: "a"}); !errors.Is(err, ErrDuplicateReport) {
		t.Fatalf("abort twice: %v", err)
	}
	if _, complete, err := c.AddReport(report(id, "b", 0, ChannelState[string]{Channel: Channel{"a", "b"}})); err != nil || complete {
		t.Fatalf("report after abort: complete=%v err=%v", complete, err)
	}
	if _, complete, err := c.AddReport(report(id, "c", 0)); err != nil || complete {
		t.Fatalf("last report after abort: complete=%v err=%v", complete, err)
	}
	if got := c.Pending(); len(got) != 1 || got[0] != (SnapshotID{Origin: "b", Seq: 1}) {
		t.Fatalf("pending %v, want only b#1", got)
	}
}

func TestNewCollectorRejectsNegativeLimit(t *testing.T) {
	g, _ := NewGraph(nil, nil)
	if _, err := NewCollector[int, int](g, -1); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("NewCollector(-1): %v", err)
	}
}
