package engine

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// handlesOf renders pieces as handle@uploaded-for, for comparison.
func handlesOf(pieces []protocol.SharedPiece) []string {
	var out []string
	for _, p := range pieces {
		out = append(out, p.String())
	}
	return out
}

func takeOrFail(t *testing.T, inc *incremental, cp protocol.CheckpointID, savepoint bool, pairs ...pair) ([]string, int) {
	t.Helper()
	shared, uploads, err := inc.take("sum-0", cp, savepoint, encodePairs(pairs))
	if err != nil {
		t.Fatal(err)
	}
	return handlesOf(shared), len(uploads)
}

// TestIncrementalReusesOnlyWhatACompletedCheckpointHolds: a snapshot uploads the keys that
// changed as a new run and refers again to the runs of the newest checkpoint the task heard
// completed, never to a pending one's; a savepoint uploads everything; an abort of a
// snapshot that reused pieces drops the base; compaction merges the runs into one.
func TestIncrementalReusesOnlyWhatACompletedCheckpointHolds(t *testing.T) {
	inc := newIncremental(3)
	a1, b1, a2, c1 := pair{"a", 1}, pair{"b", 1}, pair{"a", 2}, pair{"c", 1}
	steps := []struct {
		cp       protocol.CheckpointID
		pairs    []pair
		complete bool // heard completed after the snapshot
		want     []string
		uploads  int
	}{
		{1, []pair{a1, b1}, true, []string{"state/piece/sum-0/1/0@1"}, 1},
		// Checkpoint 2 pending when 3 is taken: 3 uploads run 1 again.
		{2, []pair{a2, b1}, false, []string{"state/piece/sum-0/1/0@1", "state/piece/sum-0/2/1@2"}, 1},
		{3, []pair{a2, b1, c1}, true, []string{"state/piece/sum-0/1/0@1", "state/piece/sum-0/3/1@3", "state/piece/sum-0/3/2@3"}, 2},
		// Four runs are more than three: merged into one.
		{4, []pair{a1, b1, c1}, false, []string{"state/piece/sum-0/4/0@4"}, 1},
	}
	for _, s := range steps {
		got, uploads := takeOrFail(t, inc, s.cp, false, s.pairs...)
		if !slices.Equal(got, s.want) || uploads != s.uploads {
			t.Fatalf("checkpoint %d: pieces %v with %d uploads, want %v with %d", s.cp, got, uploads, s.want, s.uploads)
		}
		if s.complete {
			inc.completed(s.cp)
		}
	}
	inc.completed(4)
	if got, uploads := takeOrFail(t, inc, 5, true, a1, b1, c1); uploads != 1 || got[0] != "state/piece/sum-0/5/0@5" {
		t.Fatalf("savepoint: pieces %v with %d uploads, want its own", got, uploads)
	}
	if got, _ := takeOrFail(t, inc, 6, false, a1, b1, c1); !slices.Equal(got, []string{"state/piece/sum-0/4/0@4"}) {
		t.Fatalf("checkpoint 6 after the savepoint: %v, want checkpoint 4's piece", got)
	}
	inc.aborted(6)
	if _, uploads := takeOrFail(t, inc, 7, false, a1, b1, c1); uploads != 1 {
		t.Fatalf("after an abort of a snapshot that reused pieces: %d uploads, want everything afresh", uploads)
	}
}

// TestIncrementalRestoreAddsUpTheRuns: restoring reads the runs in order, later values over
// earlier ones, to the state a full snapshot holds; a checkpoint's pieces become the base,
// a savepoint's do not.
func TestIncrementalRestoreAddsUpTheRuns(t *testing.T) {
	runs := [][]byte{encodePairs([]pair{{"a", 1}, {"b", 1}}), encodePairs([]pair{{"a", 2}, {"c", 5}})}
	pieces := []protocol.SharedPiece{{Handle: "p0", UploadedFor: 1}, {Handle: "p1", UploadedFor: 2}}
	for _, savepoint := range []bool{false, true} {
		inc := newIncremental(4)
		state, err := inc.restored(2, savepoint, pieces, runs)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodePairs([]pair{{"a", 2}, {"b", 1}, {"c", 5}}); !slices.Equal(state, want) {
			t.Fatalf("restored state %q, want %q", state, want)
		}
		_, uploads := takeOrFail(t, inc, 3, false, pair{"a", 2}, pair{"b", 1}, pair{"c", 5})
		if want := map[bool]int{false: 0, true: 2}[savepoint]; uploads != want {
			t.Errorf("savepoint %v: the first snapshot after the restore uploads %d runs, want %d", savepoint, uploads, want)
		}
	}
	if _, err := decodePairs(encodePairs([]pair{{"b", 1}, {"a", 1}})); err == nil {
		t.Error("keys out of order decoded")
	}
}
