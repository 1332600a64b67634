package trace

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The benchmarks here record the events that make up the standard scenario's trace (about
// 27,000 events per ten virtual seconds: barrier.send and barrier.recv are half of them,
// sink.writes and snapshot.taken carry most of the bytes). Virtual times are ten digits, as
// they are a few seconds into a run.

// benchStart is a virtual time a few seconds into a run, in nanoseconds.
const benchStart = 2_000_000_000

// barrierSendEvent is a barrier.send: the most common event, short, no attributes.
func barrierSendEvent() Event {
	return Event{Kind: KindBarrierSend, Task: "src-3", To: "sum-5", CP: 42}
}

// snapshotTakenEvent is a snapshot.taken of an aggregator with twelve inputs: 26 attributes
// (recv and chan per input, sent for its one output, the state digest), sorted as the engine
// passes them (chan.src-10 before chan.src-2).
func snapshotTakenEvent() Event {
	var attrs []Attr
	for i := range 12 {
		attrs = append(attrs, Attr{AttrChanPrefix + "src-" + strconv.Itoa(i), strconv.Itoa(i % 3)})
	}
	for i := range 12 {
		attrs = append(attrs, Attr{AttrRecvPrefix + "src-" + strconv.Itoa(i), strconv.Itoa(1700 + 13*i)})
	}
	attrs = append(attrs, Attr{AttrSentPrefix + "sink-4", "20391"}, Attr{AttrState, "d81f58deafc0c35c"})
	slices.SortFunc(attrs, func(a, b Attr) int { return strings.Compare(a.Key, b.Key) })
	return Event{Kind: KindSnapshotTaken, Task: "sum-4", CP: 42, Attrs: attrs}
}

// sinkWritesEvent is a sink.writes of n records, as a two-phase-commit sink traces one
// buffer.
func sinkWritesEvent(n int) Event {
	var rids, values []string
	for i := range n {
		rids = append(rids, "src:"+strconv.Itoa(i%8)+":"+strconv.Itoa(1700+7*i))
		values = append(values, strconv.Itoa(500+11*i))
	}
	return Event{Kind: KindSinkWrites, Task: "sink-6", Txn: "sink-6.e1.t19", Attrs: []Attr{
		{Key: AttrRIDs, Value: strings.Join(rids, ListSeparator)},
		{Key: AttrValues, Value: strings.Join(values, ListSeparator)},
	}}
}

// standardMix is one round of the standard scenario's events in about their proportions:
// per snapshot.taken, three barrier.send, three barrier.recv, one notify.complete, one
// snapshot.ack and one sink.writes.
func standardMix() []Event {
	return []Event{
		barrierSendEvent(),
		{Kind: KindBarrierRecv, Task: "sum-5", From: "src-3", CP: 42},
		barrierSendEvent(),
		sinkWritesEvent(12),
		{Kind: KindBarrierRecv, Task: "sum-5", From: "src-3", CP: 42},
		snapshotTakenEvent(),
		{Kind: KindSnapshotAck, Task: "sum-5", CP: 42},
		barrierSendEvent(),
		{Kind: KindBarrierRecv, Task: "sum-5", From: "src-3", CP: 42},
		{Kind: KindNotifyComplete, Task: "sum-5", CP: 41},
	}
}

// benchEmit records events round robin, hashing only (no writer), as the standard
// scenario's benchmark does, and reports the bytes of canonical lines per event.
func benchEmit(b *testing.B, events ...Event) {
	r := NewRecorder(nil, Header{})
	var lineBytes int
	for _, e := range events {
		lineBytes += len(e.String()) + 1
	}
	b.SetBytes(int64(lineBytes / len(events)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Emit(benchStart+int64(i)*3_700, events[i%len(events)])
	}
	r.Hash()
}

func BenchmarkEmitBarrierSend(b *testing.B)   { benchEmit(b, barrierSendEvent()) }
func BenchmarkEmitSnapshotTaken(b *testing.B) { benchEmit(b, snapshotTakenEvent()) }
func BenchmarkEmitSinkWrites12(b *testing.B)  { benchEmit(b, sinkWritesEvent(12)) }
func BenchmarkEmitStandardMix(b *testing.B)   { benchEmit(b, standardMix()...) }

// The same events with their values vouched for as plain (Event.PlainValues), as the engine
// emits snapshot.taken and sink.writes.
func BenchmarkEmitSnapshotTakenPlain(b *testing.B) { benchEmit(b, vouched(snapshotTakenEvent())) }
func BenchmarkEmitSinkWrites12Plain(b *testing.B)  { benchEmit(b, vouched(sinkWritesEvent(12))) }
func BenchmarkEmitSinkWrites1024Plain(b *testing.B) {
	benchEmit(b, vouched(sinkWritesEvent(1024)))
}
func BenchmarkEmitSinkWrites1024(b *testing.B) { benchEmit(b, sinkWritesEvent(1024)) }

// vouched returns e with PlainValues set.
func vouched(e Event) Event {
	e.PlainValues = true
	return e
}

// BenchmarkEmitStandardMixToWriter is the mix written to a file-like writer as well.
func BenchmarkEmitStandardMixToWriter(b *testing.B) {
	r := NewRecorder(io.Discard, Header{})
	events := standardMix()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Emit(benchStart+int64(i)*3_700, events[i%len(events)])
	}
	if err := r.Flush(); err != nil {
		b.Fatal(err)
	}
}
