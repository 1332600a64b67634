package chandylamport

import (
	"errors"
	"testing"
)

func TestNewProcessRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want error
	}{
		{"self-loop input", Config{ID: "a", Inputs: []ProcessID{"b", "a"}}, ErrBadGraph},
		{"self-loop output", Config{ID: "a", Outputs: []ProcessID{"a"}}, ErrBadGraph},
		{"input twice", Config{ID: "a", Inputs: []ProcessID{"b", "b"}}, ErrBadGraph},
		{"output twice", Config{ID: "a", Outputs: []ProcessID{"c", "b", "c"}}, ErrBadGraph},
		{"empty id", Config{}, ErrBadName},
		{"id with space", Config{ID: "a b"}, ErrBadName},
		{"neighbour with arrow", Config{ID: "a", Inputs: []ProcessID{"b->c"}}, ErrBadName},
		{"negative concurrency", Config{ID: "a", MaxConcurrent: -1}, ErrBadConfig},
		{"negative channel limit", Config{ID: "a", MaxRecordedPerChannel: -1}, ErrBadConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewProcess[int, int](tc.cfg)
			if !errors.Is(err, tc.want) {
				t.Fatalf("NewProcess(%+v) = %v, want %v", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestNewProcessAppliesDefaults(t *testing.T) {
	p, err := NewProcess[int, int](Config{ID: "a", Inputs: []ProcessID{"c", "b"}, Outputs: []ProcessID{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.maxConcurrent != DefaultMaxConcurrent || p.maxRecorded != DefaultMaxRecordedPerChannel {
		t.Fatalf("limits %d, %d; want the defaults", p.maxConcurrent, p.maxRecorded)
	}
	if got := p.inputs; len(got) != 2 || got[0] != "b" || got[1] != "c" {
		t.Fatalf("inputs %v, want them sorted", got)
	}
	if p.ID() != "a" || len(p.Snapshots()) != 0 || p.Ready() != nil {
		t.Fatalf("a fresh process should be named a, track nothing and have nothing to do")
	}
}

// TestReceiveAllocatesNothingWhenIdle holds the promise of Receive's documentation: when no
// snapshot records the channel, telling the process about a message costs no allocation.
func TestReceiveAllocatesNothingWhenIdle(t *testing.T) {
	p, err := NewProcess[int, [4]int](Config{ID: "a", Inputs: []ProcessID{"b", "c"}, Outputs: []ProcessID{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	message := [4]int{1, 2, 3, 4}
	if allocs := testing.AllocsPerRun(1000, func() {
		if err := p.Receive("b", message); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("Receive with no snapshot allocates %v times per call, want 0", allocs)
	}
	// Also with a snapshot that records only the other channel.
	if _, err := p.Initiate(); err != nil {
		t.Fatal(err)
	}
	id := p.Snapshots()[0]
	if err := p.StateRecorded(id, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.HandleMarker(Marker{Snapshot: id, Channel: Channel{From: "b", To: "a"}}); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(1000, func() {
		if err := p.Receive("b", message); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("Receive on a closed channel allocates %v times per call, want 0", allocs)
	}
}

// TestReadyHandsOverOnce: outputs are returned once, and a slice the host holds is never
// written by later inputs (answering RecordState while walking the outputs is the normal
// pattern).
func TestReadyHandsOverOnce(t *testing.T) {
	p, err := NewProcess[string, string](Config{ID: "a", Outputs: []ProcessID{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := p.Initiate()
	if err != nil {
		t.Fatal(err)
	}
	first := p.Ready()
	if len(first) != 2 || first[0] != (RecordState{Snapshot: id, Process: "a"}) {
		t.Fatalf("outputs %v, want record-state then a marker", first)
	}
	if err := p.StateRecorded(id, "S"); err != nil {
		t.Fatal(err)
	}
	if first[0] != (RecordState{Snapshot: id, Process: "a"}) {
		t.Fatalf("a later input overwrote the outputs already handed over: %v", first)
	}
	second := p.Ready()
	if len(second) != 1 || second[0].String() != "report a#1 by a: state=S" {
		t.Fatalf("outputs %v, want only the report", second)
	}
	if p.Ready() != nil {
		t.Fatal("outputs handed over twice")
	}
}

// TestErrorsChangeNothing: a refused input leaves the process as it was, so the host can
// keep using it (or fail it) knowing its state.
func TestErrorsChangeNothing(t *testing.T) {
	p, err := NewProcess[int, int](Config{ID: "a", Inputs: []ProcessID{"b", "c"}, Outputs: []ProcessID{"b"}, MaxConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := p.Initiate()
	p.Ready()
	if err := p.StateRecorded(id, 7); err != nil {
		t.Fatal(err)
	}
	marker := Marker{Snapshot: id, Channel: Channel{From: "b", To: "a"}}
	if err := p.HandleMarker(marker); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		p.HandleMarker(marker),
		p.HandleMarker(Marker{Snapshot: SnapshotID{Origin: "c", Seq: 1}, Channel: Channel{From: "c", To: "a"}}),
		p.HandleMarker(Marker{Snapshot: id, Channel: Channel{From: "x", To: "a"}}),
		p.Join(SnapshotID{Origin: "b", Seq: 1}),
		p.Receive("x", 1),
		p.StateRecorded(id, 8),
	} {
		if err == nil {
			t.Fatal("a bad input was accepted")
		}
	}
	if _, err := p.Initiate(); !errors.Is(err, ErrTooManySnapshots) {
		t.Fatalf("Initiate when full: %v, want ErrTooManySnapshots", err)
	}
	if err := p.Receive("c", 42); err != nil {
		t.Fatal(err)
	}
	if err := p.HandleMarker(Marker{Snapshot: id, Channel: Channel{From: "c", To: "a"}}); err != nil {
		t.Fatal(err)
	}
	out := p.Ready()
	if len(out) != 1 || out[0].String() != "report a#1 by a: state=7 b->a=[] c->a=[42]" {
		t.Fatalf("after the refused inputs the report is %v", out)
	}
	// The refused Initiate did not use up a sequence number.
	if next, err := p.Initiate(); err != nil || next.Seq != 2 {
		t.Fatalf("next Initiate = %v, %v; want a#2", next, err)
	}
}

func TestFirstSeqContinuesTheCounter(t *testing.T) {
	p, err := NewProcess[int, int](Config{ID: "a", FirstSeq: 5})
	if err != nil {
		t.Fatal(err)
	}
	id, err := p.Initiate()
	if err != nil || id != (SnapshotID{Origin: "a", Seq: 5}) {
		t.Fatalf("Initiate = %v, %v; want a#5", id, err)
	}
}

// A marker lost on one channel lets an origin's newer snapshot reach a process first; the
// older one's marker that comes later by another path is stale, and says so.
func TestMarkerOfAnOlderSnapshotIsStale(t *testing.T) {
	p, err := NewProcess[int, int](Config{ID: "b", Inputs: []ProcessID{"a", "n"}, Outputs: []ProcessID{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	newer := SnapshotID{Origin: "a", Seq: 2}
	if err := p.HandleMarker(Marker{Snapshot: newer, Channel: Channel{From: "a", To: "b"}}); err != nil {
		t.Fatal(err)
	}
	p.Ready()
	if err := p.StateRecorded(newer, 1); err != nil {
		t.Fatal(err)
	}
	older := Marker{Snapshot: SnapshotID{Origin: "a", Seq: 1}, Channel: Channel{From: "n", To: "b"}}
	if err := p.HandleMarker(older); !errors.Is(err, ErrStaleMarker) || !errors.Is(err, ErrDuplicateMarker) {
		t.Fatalf("the older snapshot's marker: %v, want ErrStaleMarker, an ErrDuplicateMarker", err)
	}
}
