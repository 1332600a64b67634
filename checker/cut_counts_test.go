package checker

import (
	"math/rand/v2"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestChannelCountsOfAgreesWithAttrLookups checks channelTable.read, which reads each
// snapshot's attributes once, against the lookups it replaces: channels found by
// prefixedInts, each count read by intAttr, on attributes with repeated keys, values that are
// not integers and keys with nothing after the prefix.
func TestChannelCountsOfAgreesWithAttrLookups(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	keys := []string{"sent.a", "sent.b", "sent.", "out.a", "out.b", "recv.a", "recv.b", "chan.a", "chan.b",
		"chantokens.a", "chanmsgs.b", "state", "tokens"}
	values := []string{"0", "1", "2", "7", "x", "-1", "", "99999999999999999999", "-99999999999999999999"}
	tasks := []string{"a", "b", "c"}
	var table channelTable
	for round := 0; round < 2000; round++ {
		var events []trace.Event
		cut := map[string]int{}
		for _, task := range tasks {
			if rng.IntN(4) == 0 {
				continue // not in the cut
			}
			e := trace.Event{Kind: trace.KindSnapshotTaken, Task: task, CP: 1}
			for n := rng.IntN(6); n > 0; n-- {
				e.Attrs = append(e.Attrs, trace.Attr{Key: keys[rng.IntN(len(keys))], Value: values[rng.IntN(len(values))]})
			}
			cut[task] = len(events)
			events = append(events, e)
		}
		// The lookups channelTable.read replaces.
		want := map[channel][4]int64{}
		for task, index := range cut {
			e := &events[index]
			outgoing := func(to string, _ int64) { want[channel{task, to}] = [4]int64{} }
			incoming := func(from string, _ int64) { want[channel{from, task}] = [4]int64{} }
			prefixedInts(e, trace.AttrSentPrefix, outgoing)
			prefixedInts(e, trace.AttrOutPrefix, outgoing)
			prefixedInts(e, trace.AttrRecvPrefix, incoming)
			prefixedInts(e, trace.AttrChanPrefix, incoming)
		}
		for ch := range want {
			var c [4]int64
			if index, ok := cut[ch.from]; ok {
				c[0], _ = intAttr(&events[index], trace.AttrSentPrefix+ch.to)
				c[1], _ = intAttr(&events[index], trace.AttrOutPrefix+ch.to)
			}
			if index, ok := cut[ch.to]; ok {
				c[2], _ = intAttr(&events[index], trace.AttrRecvPrefix+ch.from)
				c[3], _ = intAttr(&events[index], trace.AttrChanPrefix+ch.from)
			}
			want[ch] = c
		}
		// One table for every round, as consistent-cut keeps one for every cut.
		table.read(events, cut)
		got := 0
		for _, c := range table.counts {
			if !c.counted {
				continue
			}
			got++
			if w, ok := want[c.ch]; !ok || w != [4]int64{c.sent.n, c.out.n, c.recv.n, c.inFlight.n} {
				t.Fatalf("round %d: channel %v counts %+v, want %v (%v)", round, c.ch, c, w, events)
			}
		}
		if got != len(want) {
			t.Fatalf("round %d: %d channels, want %d (%v)", round, got, len(want), events)
		}
	}
}
