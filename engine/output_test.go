package engine

import (
	"slices"
	"testing"
)

// TestBufferPoolReusesArrays: an array given back is handed out again, empty and with the
// capacity of a buffer; arrays of another capacity and arrays beyond maxFreeBuffers are
// left to the garbage collector.
func TestBufferPoolReusesArrays(t *testing.T) {
	p := bufferPool{size: 8}
	buf := p.get()
	if len(buf) != 0 || cap(buf) != 8 {
		t.Fatalf("new array has len %d cap %d, want 0 and 8", len(buf), cap(buf))
	}
	buf = append(buf, rec{seq: 1}, rec{seq: 2})
	p.put(buf)
	again := p.get()
	if len(again) != 0 || cap(again) != 8 || &again[:1][0] != &buf[0] {
		t.Fatalf("got len %d cap %d, want the returned array back, emptied", len(again), cap(again))
	}
	p.put(make([]rec, 0, 4))
	if len(p.free) != 0 {
		t.Fatalf("the pool kept an array of the wrong capacity")
	}
	for range maxFreeBuffers + 10 {
		p.put(make([]rec, 0, 8))
	}
	if len(p.free) != maxFreeBuffers {
		t.Fatalf("the pool keeps %d arrays, want its bound %d", len(p.free), maxFreeBuffers)
	}
}

// TestBufferPoolSteadyStateAllocatesNothing is the pool's point: a channel that fills,
// sends and consumes buffer after buffer allocates no arrays once it is warm.
func TestBufferPoolSteadyStateAllocatesNothing(t *testing.T) {
	p := bufferPool{size: 256}
	allocs := testing.AllocsPerRun(100, func() {
		buf := p.get()
		buf = append(buf, rec{seq: 1})
		p.put(buf)
	})
	if allocs != 0 {
		t.Fatalf("a buffer's round trip allocates %.2f times", allocs)
	}
}

// TestBufferMsgIsTakenOnce: the receiver takes a buffer's records out of the message, so a
// message delivered twice without CopyMessage cannot hand out a reused array: it panics.
func TestBufferMsgIsTakenOnce(t *testing.T) {
	records := []rec{{seq: 7}}
	m := &bufferMsg{records: records}
	if got := m.take("sum-0", "src-0"); !slices.Equal(got, records) {
		t.Fatalf("took %v, want %v", got, records)
	}
	defer func() {
		if recover() == nil {
			t.Fatalf("a second take did not panic")
		}
	}()
	m.take("sum-0", "src-0")
}

// TestCopiedBufferSurvivesReuse: the copy an Env delivers for a duplicated buffer keeps its
// records after the original's array went back to the pool and was refilled.
func TestCopiedBufferSurvivesReuse(t *testing.T) {
	p := bufferPool{size: 4}
	orig := append(p.get(), rec{seq: 1, value: 10}, rec{seq: 2, value: 20})
	want := slices.Clone(orig)
	m := &bufferMsg{records: orig}
	dup := m.CopyMessage().(*bufferMsg)
	p.put(m.take("sum-0", "src-0"))
	reused := append(p.get(), rec{seq: 99}, rec{seq: 98})
	if &reused[0] != &orig[0] {
		t.Fatalf("the pool did not hand the array out again; the test checks nothing")
	}
	if got := dup.take("sum-0", "src-0"); !slices.Equal(got, want) {
		t.Fatalf("duplicate holds %v after the original's array was reused, want %v", got, want)
	}
}

// TestDuplicateHoldsNoCredit: a duplicate (bufferMsg.CopyMessage) is consumed like any
// buffer but returns no credit and no array to the pool, and does not count against the
// credit bound of the queue.
func TestDuplicateHoldsNoCredit(t *testing.T) {
	original := &bufferMsg{records: []rec{{seq: 1}, {seq: 2}}}
	dup := original.CopyMessage().(*bufferMsg)
	var in inputChannel
	in.push(inItem{records: original.take("sum-0", "src-0")})
	in.push(inItem{records: dup.take("sum-0", "src-0"), duplicate: dup.duplicate})
	if in.buffers != 1 || in.duplicates != 1 {
		t.Fatalf("buffers %d, duplicates %d: want the original counted, the duplicate not", in.buffers, in.duplicates)
	}
	if item, credited := in.pop(); !credited || item.duplicate {
		t.Errorf("the original: credited %v, duplicate %v", credited, item.duplicate)
	}
	item, credited := in.pop()
	if credited || !item.duplicate || len(item.records) != 2 || in.duplicates != 0 {
		t.Errorf("the duplicate: credited %v, duplicate %v, %d records, %d duplicates left", credited, item.duplicate, len(item.records), in.duplicates)
	}
}
