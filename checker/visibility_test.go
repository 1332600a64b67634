package checker

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// commitSpan appends a commit of records records that began at virtual time start.
func (b *tb) commitSpan(txn string, start int64, records string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkCommit, Task: "sink", CP: 1, Txn: txn,
		Attrs: attrs("records="+records, "start="+itoa(start))})
}

func TestSinkVisibilityPassesReadersOfCommittedOutput(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.read("reader-1", 0, "0")
	b.commit("sink", 1, "t1", "records=2")
	b.read("reader-2", b.now()-5, "0") // began before the commit returned: may miss it
	b.read("reader-1", b.now()+5, "2")
	b.write("sink", "t2", "r3")
	b.commitSpan("t2", b.now()+5, "1")
	b.read("reader-2", b.now()+5, "3")
	wantPass(t, SinkVisibility(b.events, SearchOptions{}))
}

func TestSinkVisibilityFlagsReaderSeeingUncommittedOutput(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.commit("sink", 1, "t1", "records=1")
	b.write("sink", "t2", "r2")
	dirty := b.read("reader-1", b.now()+5, "2") // t2 is written but not committed
	b.commit("sink", 2, "t2", "records=1")
	wantFirst(t, SinkVisibility(b.events, SearchOptions{}), dirty,
		"reader reader-1 saw 2 records, but at most 1 were committed: uncommitted output is visible")
}

func TestSinkVisibilityFlagsStaleRead(t *testing.T) {
	b := newTB()
	b.commit("sink", 1, "t1", "records=2")
	stale := b.read("reader-1", b.now()+5, "1")
	wantFirst(t, SinkVisibility(b.events, SearchOptions{}), stale, "saw 1 records after 2 had been committed")
}

func TestSinkVisibilityFlagsShrinkingOutput(t *testing.T) {
	b := newTB()
	b.read("reader-1", 0, "2") // concurrent with the long commit below: may see it
	b.read("reader-2", b.now()+5, "0")
	b.commitSpan("t1", 0, "2")
	wantFirst(t, SinkVisibility(b.events, SearchOptions{}), 1, "reader reader-2 saw 0 records after a read at seq 0 saw 2: the output shrank")
}

func TestSinkVisibilityLeavesSubtleCasesToPorcupine(t *testing.T) {
	// Two concurrent commits of 2 records each: a read can see 0, 2 or 4 records, never 3,
	// though 3 lies within every bound.
	b := newTB()
	b.read("reader-1", 0, "3")
	b.commitSpan("t1", 0, "2")
	b.commitSpan("t2", 0, "2")
	b.read("reader-1", b.now()+5, "4")
	var picture bytes.Buffer
	res := SinkVisibility(b.events, SearchOptions{Picture: &picture})
	wantFirst(t, res, 0, "reads of the external store around seq 0..2 have no linearization")
	if !strings.Contains(res.Note, pictureNote) {
		t.Fatalf("the note should say the history was drawn: %q", res.Note)
	}
	if !strings.Contains(picture.String(), "<html") {
		t.Fatalf("want porcupine's drawing written, got %d bytes", picture.Len())
	}
}

// fortyConcurrentCommits is forty concurrent commits of 2 records and two reads among them,
// one of an odd count: porcupine must try every subset before giving up. (With one read the
// segment would be decided without porcupine.)
func fortyConcurrentCommits() *tb {
	b := newTB()
	for range 40 {
		b.commitSpan("t", 0, "2")
	}
	b.read("reader-1", 0, "41")
	b.read("reader-2", 0, "0")
	b.commitSpan("t", 0, "2")
	return b
}

// A segment with one read is decided without porcupine: however many commits overlap the
// read, no step of the budget is spent, and the verdict is exact.
func TestSinkVisibilityDecidesASingleReadWithoutSearch(t *testing.T) {
	opts := SearchOptions{Steps: 1, Timeout: time.Hour}
	for _, tc := range []struct {
		seen string
		pass bool
	}{{"0", true}, {"80", true}, {"42", true}, {"41", false}} {
		b := newTB()
		for range 40 {
			b.commitSpan("t", 0, "2")
		}
		read := b.read("reader-1", 0, tc.seen)
		b.commitSpan("t", 0, "2")
		res := SinkVisibility(b.events, opts)
		if tc.pass {
			wantPass(t, res)
		} else {
			wantFirst(t, res, read, "have no linearization")
		}
	}
}

// A history too hard for the step budget is unknown, never pass, and says so the same way on
// every machine: the wall-clock safety net is an hour here and never fires.
func TestSinkVisibilityOutOfStepsIsUnknownNotPass(t *testing.T) {
	events := fortyConcurrentCommits().events
	opts := SearchOptions{Steps: 10_000, Timeout: time.Hour}
	res := SinkVisibility(events, opts)
	if res.Verdict != VerdictUnknown || res.Note != "porcupine ran out of its budget of 10000 model steps" {
		t.Fatalf("want unknown after the step budget, got:\n%s", res)
	}
	if again := SinkVisibility(events, opts); again.Verdict != res.Verdict || again.Note != res.Note {
		t.Fatalf("the same trace judged twice:\n%s\n%s", res, again)
	}
	// The default budget gives up on it too.
	if res := SinkVisibility(events, SearchOptions{Timeout: time.Hour}); res.Verdict != VerdictUnknown ||
		!strings.Contains(res.Note, "budget of 2000000 model steps") {
		t.Fatalf("want unknown after the default step budget, got:\n%s", res)
	}
}

func TestSinkVisibilityTimeoutIsUnknownAndSaysItDependsOnTheMachine(t *testing.T) {
	res := SinkVisibility(fortyConcurrentCommits().events, SearchOptions{Steps: 1 << 62, Timeout: time.Millisecond})
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "wall-clock safety net") {
		t.Fatalf("want unknown after the safety net, got:\n%s", res)
	}
}

// legalButCostly appends twelve concurrent commits of 2 records and two reads, begun before
// them all, of the committed records before them: legal (the reads come first), but
// porcupine tries the commits first and must backtrack through their subsets to find it.
func (b *tb) legalButCostly(before int64) {
	start := b.now() + 1
	for range 12 {
		b.commitSpan("t", start, "2")
	}
	b.read("reader-1", start, itoa(before))
	b.read("reader-2", start, itoa(before)) // a second read, so porcupine decides the segment
}

// Segments share the property's budget of steps: two segments that each fit the budget alone
// run out of it together.
func TestSinkVisibilitySegmentsShareTheStepBudget(t *testing.T) {
	one := newTB()
	one.legalButCostly(0)
	judge := func(b *tb, steps int64) Result {
		return SinkVisibility(b.events, SearchOptions{Steps: steps, Timeout: time.Hour})
	}
	// The smallest budget that decides one segment: what it needs, exactly.
	need := int64(sort.Search(1<<20, func(n int) bool { return judge(one, int64(n)+1).Verdict == VerdictPass })) + 1
	if need < 100 || judge(one, need).Verdict != VerdictPass {
		t.Fatalf("one segment should need a fair number of steps and pass with them, needs %d", need)
	}
	two := newTB()
	two.legalButCostly(0)
	two.legalButCostly(24)
	if res := judge(two, need); res.Verdict != VerdictUnknown {
		t.Fatalf("two segments within one segment's need: want unknown, got:\n%s", res)
	}
	wantPass(t, judge(two, 2*need))
}

// A read without its records attribute is not a read of nothing: it is left unjudged.
func TestSinkVisibilityDoesNotJudgeAReadWithoutRecords(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.commitSpan("t1", b.now(), "1")
	b.add(trace.Event{Kind: trace.KindSinkRead, Task: "reader-0"})
	wantUnknown(t, SinkVisibility(b.events, SearchOptions{}), "sink.read without records")
}
