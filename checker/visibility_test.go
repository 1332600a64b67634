package checker

import (
	"os"
	"path/filepath"
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
	wantPass(t, SinkVisibility(b.events, LinzOptions{}))
}

func TestSinkVisibilityFlagsReaderSeeingUncommittedOutput(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.commit("sink", 1, "t1", "records=1")
	b.write("sink", "t2", "r2")
	dirty := b.read("reader-1", b.now()+5, "2") // t2 is written but not committed
	b.commit("sink", 2, "t2", "records=1")
	wantFirst(t, SinkVisibility(b.events, LinzOptions{}), dirty,
		"reader reader-1 saw 2 records, but at most 1 were committed: uncommitted output is visible")
}

func TestSinkVisibilityFlagsStaleRead(t *testing.T) {
	b := newTB()
	b.commit("sink", 1, "t1", "records=2")
	stale := b.read("reader-1", b.now()+5, "1")
	wantFirst(t, SinkVisibility(b.events, LinzOptions{}), stale, "saw 1 records after 2 had been committed")
}

func TestSinkVisibilityFlagsShrinkingOutput(t *testing.T) {
	b := newTB()
	b.read("reader-1", 0, "2") // concurrent with the long commit below: may see it
	b.read("reader-2", b.now()+5, "0")
	b.commitSpan("t1", 0, "2")
	wantFirst(t, SinkVisibility(b.events, LinzOptions{}), 1, "reader reader-2 saw 0 records after a read at seq 0 saw 2: the output shrank")
}

func TestSinkVisibilityLeavesSubtleCasesToPorcupine(t *testing.T) {
	// Two concurrent commits of 2 records each: a read can see 0, 2 or 4 records, never 3,
	// though 3 lies within every bound.
	b := newTB()
	b.read("reader-1", 0, "3")
	b.commitSpan("t1", 0, "2")
	b.commitSpan("t2", 0, "2")
	b.read("reader-1", b.now()+5, "4")
	path := filepath.Join(t.TempDir(), "sink.html")
	res := SinkVisibility(b.events, LinzOptions{HTMLPath: path})
	wantFirst(t, res, 0, "reads of the external store around seq 0..2 have no linearization")
	if !strings.Contains(res.Note, "visualization: "+path) {
		t.Fatalf("the note should say where the visualization is: %q", res.Note)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("want the visualization written: %v", err)
	}
}

func TestSinkVisibilityTimeoutIsUnknownNotPass(t *testing.T) {
	// Forty concurrent commits of 2 records and a read of an odd count: porcupine must try
	// every subset before giving up, which no budget of milliseconds allows.
	b := newTB()
	for range 40 {
		b.commitSpan("t", 0, "2")
	}
	b.read("reader-1", 0, "41")
	b.commitSpan("t", 0, "2")
	res := SinkVisibility(b.events, LinzOptions{Timeout: 20 * time.Millisecond})
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "timed out") {
		t.Fatalf("want unknown after a timeout, got:\n%s", res)
	}
}
