package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func TestDeterminismComparesTheTraceHash(t *testing.T) {
	events := notifiedRun().events
	ref := Reference{TraceHash: trace.HashEvents(events)}
	wantPass(t, Determinism(events, ref))

	other := slices.Clone(events)
	other[4].T++ // a replay where one event happened a nanosecond later
	res := Determinism(other, ref)
	wantFirst(t, res, other[len(other)-1].Seq, "differs from the expected "+ref.TraceHash[:12])

	if res := Determinism(events, Reference{}); res.Verdict != VerdictUnknown {
		t.Fatalf("without a hash determinism cannot be judged, got %s", res)
	}

	// A reference written before trace hash version 2 is judged under version 1.
	old := Reference{TraceHash: trace.HashEventsV1(events)}
	wantPass(t, Determinism(events, old))
	wantFirst(t, Determinism(other, old), other[len(other)-1].Seq, "differs from the expected "+old.TraceHash[:12])
}

func TestFirstDifferenceNamesTheFirstEventThatDiffers(t *testing.T) {
	original := notifiedRun().events
	if _, differ := FirstDifference(original, slices.Clone(original)); differ {
		t.Fatal("identical traces reported as different")
	}

	replay := slices.Clone(original)
	replay[6].Task = "other-sink"
	replay[9].CP = 99
	v, differ := FirstDifference(original, replay)
	if !differ || v.Seq != 6 || v.Task != "other-sink" || !strings.Contains(v.Message, "replay differs at event 6") {
		t.Fatalf("want the difference at seq 6, got %v (differ=%v)", v, differ)
	}

	v, differ = FirstDifference(original, original[:5])
	if !differ || v.Seq != 4 || !strings.Contains(v.Message, "replay ends after 5 events") {
		t.Fatalf("want a shorter replay flagged at its last event, got %v", v)
	}
	v, differ = FirstDifference(original[:5], original)
	if !differ || v.Seq != 5 || !strings.Contains(v.Message, "first extra") {
		t.Fatalf("want a longer replay flagged at its first extra event, got %v", v)
	}
}

func TestCompareHashes(t *testing.T) {
	if _, differ := CompareHashes("abc", "abc"); differ {
		t.Fatal("equal hashes differ")
	}
	v, differ := CompareHashes("aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb")
	if !differ || v.String() != "determinism seq=0 t=0: trace hash bbbbbbbbbbbb differs from the expected aaaaaaaaaaaa" {
		t.Fatalf("got %q", v)
	}
}
