package simenv

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// TestDuplicatedBufferDeliversTheSameRecords: receivers reuse the record arrays of the
// buffers they consume (engine's bufferPool), so a buffer the network delivers twice (the
// out-of-model data.duplicate fault) must arrive the second time as a copy: the sim link
// asks simenv's envelope, which asks the engine's message (sim.MessageCopier). Delivering
// the same message twice instead panics in the engine. The duplicated channel receives
// exactly what was sent, with the duplicated buffer's records twice in a row, and goes on
// flowing: the copy takes no credit and returns none, so the sender's accounting stays
// whole (a second credit would trip its invariant). (That the copy keeps its records once
// the original's array is refilled is engine's TestCopiedBufferSurvivesReuse.)
func TestDuplicatedBufferDeliversTheSameRecords(t *testing.T) {
	cfg := engine.StandardConfig()
	cfg.TraceRecords = true
	job, err := NewJob(1, cfg, DefaultConfig(4), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	// Duplicate the first buffer sent on a link between hosts, after the job warmed up
	// (so that arrays are recycled all around it).
	var from, to string
	var duplicatedAt sim.Time
	for _, l := range job.Kernel.Links() {
		if l.From() == l.To() {
			continue
		}
		l.SetDuplicateFilter(func(msg any) bool {
			f, r, payload, ok := Unwrap(msg)
			if !ok || from != "" || job.Kernel.Now() < sim.Time(300*time.Millisecond) || engine.Classify(payload) != engine.ClassRecords {
				return false
			}
			from, to, duplicatedAt = f, r, job.Kernel.Now()
			return true
		})
	}
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	for from == "" && job.Kernel.Now() < sim.Time(time.Second) {
		job.Kernel.RunFor(time.Millisecond)
	}
	if from == "" {
		t.Fatalf("no buffer was duplicated")
	}
	// Long enough for both copies to be consumed, and for many buffers after them to flow
	// through the channel on recycled arrays.
	job.Kernel.RunFor(500 * time.Millisecond)
	var sent, received []string
	for _, e := range job.Recorder.Events() {
		switch {
		case e.Kind == trace.KindRecordSend && e.Task == from && e.To == to:
			sent = append(sent, e.RID)
		case e.Kind == trace.KindRecordRecv && e.Task == to && e.From == from:
			received = append(received, e.RID)
		}
	}
	// The first record received twice starts the duplicated buffer: its records come
	// again right behind it.
	first, again := -1, -1
	for i, rid := range received {
		if k := slices.Index(received[:i], rid); k >= 0 {
			first, again = k, i
			break
		}
	}
	if first < 0 {
		t.Fatalf("%s -> %s, duplicated at %v: no record received twice in %d", from, to, duplicatedAt, len(received))
	}
	buffer := received[first:again]
	if len(received) < again+len(buffer) || !slices.Equal(received[again:again+len(buffer)], buffer) {
		t.Fatalf("%s -> %s: the duplicate of buffer %v delivered %v", from, to, buffer, received[again:min(len(received), again+len(buffer))])
	}
	once := slices.Concat(received[:again], received[again+len(buffer):])
	if len(once) > len(sent) || !slices.Equal(once, sent[:len(once)]) {
		t.Fatalf("%s -> %s: without the duplicate, received %d records that are not the %d sent, in order", from, to, len(once), len(sent))
	}
	if after := len(received) - again - len(buffer); after < 4*cfg.Network.Credits {
		t.Fatalf("%s -> %s: only %d records after the duplicate: the channel stalled", from, to, after)
	}
	t.Logf("%s -> %s: buffer of %d records duplicated at %v, %d records received", from, to, len(buffer), duplicatedAt, len(received))
}
