package engine_test

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// checkCuts verifies, for every completed checkpoint, the consistent-cut equation on every
// channel S->R: recv.S at R + chan.S at R = sent.R at S, using the snapshot.taken events of
// the incarnations whose snapshots made up the checkpoint (the last one per task and id).
func checkCuts(t *testing.T, events []trace.Event) {
	t.Helper()
	type key struct {
		task string
		cp   uint64
	}
	snaps := make(map[key]trace.Event)
	completed := make(map[uint64]bool)
	for _, e := range events {
		switch e.Kind {
		case trace.KindSnapshotTaken:
			snaps[key{e.Task, e.CP}] = e
		case trace.KindCheckpointComplete:
			completed[e.CP] = true
		}
	}
	checked := 0
	for k, e := range snaps {
		if !completed[k.cp] {
			continue
		}
		for _, a := range e.Attrs {
			if !strings.HasPrefix(a.Key, trace.AttrRecvPrefix) {
				continue
			}
			from := strings.TrimPrefix(a.Key, trace.AttrRecvPrefix)
			up, ok := snaps[key{from, k.cp}]
			if !ok {
				// A task that had fully finished before the checkpoint is carried over
				// with its final snapshot, taken for an earlier checkpoint.
				for cp := k.cp - 1; cp > 0 && !ok; cp-- {
					up, ok = snaps[key{from, cp}]
				}
			}
			if !ok {
				t.Errorf("cp %d: %s has no snapshot (upstream of %s)", k.cp, from, k.task)
				continue
			}
			chanCount, _ := e.Attr(trace.AttrChanPrefix + from)
			sent, ok := up.Attr(trace.AttrSentPrefix + k.task)
			if !ok {
				t.Errorf("cp %d: %s's snapshot has no sent.%s", k.cp, from, k.task)
				continue
			}
			// Records the sender's unaligned barrier overtook in its output queue were sent
			// before its snapshot and reach the receiver after its barrier: the sender keeps
			// them (out.<to>).
			outCount, _ := up.Attr(trace.AttrOutPrefix + k.task)
			if atoi(a.Value)+atoi(chanCount)+atoi(outCount) != atoi(sent) {
				t.Errorf("cp %d: channel %s->%s: recv %s + chan %s + out %s != sent %s", k.cp, from, k.task, a.Value, chanCount, outCount, sent)
			}
			checked++
		}
	}
	if len(completed) > 0 && checked == 0 {
		t.Errorf("no channel checked over %d completed checkpoints", len(completed))
	}
}

// checkRestores verifies that every task.restore from a checkpoint carries the state digest
// of the snapshot it restored.
func checkRestores(t *testing.T, events []trace.Event) {
	t.Helper()
	type key struct {
		task string
		cp   uint64
	}
	digests := make(map[key]string)
	for _, e := range events {
		switch e.Kind {
		case trace.KindSnapshotTaken:
			d, _ := e.Attr(trace.AttrState)
			digests[key{e.Task, e.CP}] = d
		case trace.KindTaskRestore:
			if e.CP == 0 {
				continue
			}
			got, _ := e.Attr(trace.AttrState)
			want, ok := digests[key{e.Task, e.CP}]
			if !ok {
				t.Errorf("seq %d: %s restored %d, for which it took no snapshot", e.Seq, e.Task, e.CP)
			}
			if got != want {
				t.Errorf("seq %d: %s restored %d with state %s, snapshot had %s", e.Seq, e.Task, e.CP, got, want)
			}
		}
	}
}

func atoi(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}
