package checker

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// goldenRun is a two-process run whose checkpoint 4 records N1 at 0, N2 at 0 and the
// messages [1 2] on N1->N2, as a course's golden snapshot would state it.
func goldenRun(n1Msgs string) *tb {
	b := newTB()
	b.trigger(4)
	b.snap("N2", 4, "tokens=0", "chan.N1=2", "chantokens.N1=3", "chanmsgs.N1="+n1Msgs, "recv.N1=0", "sent.N1=0")
	b.snap("N1", 4, "tokens=0", "chan.N2=0", "chantokens.N2=0", "recv.N2=0", "sent.N2=2")
	b.complete(4)
	return b
}

func goldenRef() Reference {
	return Reference{TokenWorkload: true, TokenTotal: 3, Snapshots: []ExpectedSnapshot{{
		CP: 4, Name: "script[2]",
		Tokens:   map[string]int64{"N1": 0, "N2": 0},
		Channels: map[string][]int64{"N1->N2": {1, 2}},
	}}}
}

func TestExpectedSnapshotPasses(t *testing.T) {
	b := goldenRun("1 2")
	if res := ExpectedSnapshots(b.events, goldenRef()); res.Verdict != VerdictPass {
		t.Fatalf("got %s", res)
	}
	// consistent-cut reads the same lists and finds them in step with the counts.
	if res := ConsistentCut(b.events, goldenRef()); res.Verdict != VerdictPass {
		t.Fatalf("consistent-cut: got %s", res)
	}
	// Default properties take it up once the reference expects a snapshot.
	report := Check(b.events, goldenRef(), Options{})
	found := false
	for _, r := range report.Results {
		found = found || r.Property == PropExpectedSnapshot && r.Verdict == VerdictPass
	}
	if !found {
		t.Fatalf("Check with expected snapshots: %v", report.Results)
	}
}

// TestExpectedSnapshotNegativeControls: each way a run can differ from the golden snapshot
// fails, pinned to the snapshot that shows it.
func TestExpectedSnapshotNegativeControls(t *testing.T) {
	cases := []struct {
		name string
		ref  func(*Reference)
		msgs string
		want string
	}{
		{"messages out of order", nil, "2 1", "channel N1->N2 recorded [2 1], expected [1 2]"},
		{"wrong balance", func(r *Reference) { r.Snapshots[0].Tokens["N1"] = 1 }, "1 2", "N1 holds 0 tokens, expected 1"},
		{"unexpected messages", func(r *Reference) { r.Snapshots[0].Channels = nil }, "1 2", "channel N1->N2 recorded [1 2], expected []"},
		{"messages missing", func(r *Reference) { r.Snapshots[0].Channels["N2->N1"] = []int64{5} }, "1 2", "channel N2->N1 recorded [], expected [5]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := goldenRef()
			if tc.ref != nil {
				tc.ref(&ref)
			}
			res := ExpectedSnapshots(goldenRun(tc.msgs).events, ref)
			if res.Verdict != VerdictFail || len(res.Violations) != 1 || !strings.Contains(res.Violations[0].Message, tc.want) {
				t.Fatalf("got %s, want a violation %q", res, tc.want)
			}
			if v := res.Violations[0]; v.CP != 4 || !strings.Contains(v.Message, "checkpoint 4 (script[2])") {
				t.Errorf("violation not pinned to checkpoint 4: %s", v)
			}
		})
	}
}

func TestExpectedSnapshotAbortedFails(t *testing.T) {
	b := newTB()
	b.trigger(4)
	seq := b.abort(4)
	res := ExpectedSnapshots(b.events, goldenRef())
	if res.Verdict != VerdictFail || res.Violations[0].Seq != seq {
		t.Fatalf("got %s", res)
	}
}

// TestExpectedSnapshotEvidence: without expectations it is unexercised; without the
// evidence it needs, unknown, never pass.
func TestExpectedSnapshotEvidence(t *testing.T) {
	if res := ExpectedSnapshots(goldenRun("1 2").events, Reference{}); res.Verdict != VerdictUnexercised {
		t.Errorf("no expectation: got %s", res)
	}
	b := newTB()
	b.trigger(4)
	if res := ExpectedSnapshots(b.events, goldenRef()); res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "never completed") {
		t.Errorf("never completed: got %s", res)
	}
	// Counted but not listed: another engine, or a trace before chanmsgs.
	b = newTB()
	b.trigger(4)
	b.snap("N2", 4, "tokens=0", "chan.N1=2", "chantokens.N1=3")
	b.snap("N1", 4, "tokens=0", "chan.N2=0")
	b.complete(4)
	if res := ExpectedSnapshots(b.events, goldenRef()); res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "counts 2 messages on channel N1->N2 but lists 0") {
		t.Errorf("no list: got %s", res)
	}
	// A list cut short: the prefix agrees, the rest is unknown; a prefix that differs, or a
	// count that differs, fails all the same.
	cut := func(list, count string) *tb {
		b := newTB()
		b.trigger(4)
		b.snap("N2", 4, "tokens=0", "chan.N1="+count, "chanmsgs.N1="+list, "chanmore.N1=1")
		b.snap("N1", 4, "tokens=0", "chan.N2=0")
		b.complete(4)
		return b
	}
	if res := ExpectedSnapshots(cut("1", "2").events, goldenRef()); res.Verdict != VerdictUnknown {
		t.Errorf("cut list, prefix agrees: got %s", res)
	}
	if res := ExpectedSnapshots(cut("2", "2").events, goldenRef()); res.Verdict != VerdictFail {
		t.Errorf("cut list, prefix differs: got %s", res)
	}
	if res := ExpectedSnapshots(cut("1 2", "3").events, goldenRef()); res.Verdict != VerdictFail || !strings.Contains(res.Violations[0].Message, "[1 2 ...+1]") {
		t.Errorf("cut list, count differs: got %s", res)
	}
	// A process without tokens.
	b = newTB()
	b.trigger(4)
	b.snap("N2", 4, "tokens=0", "chan.N1=2", "chanmsgs.N1=1 2")
	b.snap("N1", 4, "chan.N2=0")
	b.complete(4)
	if res := ExpectedSnapshots(b.events, goldenRef()); res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "N1's snapshot records no tokens") {
		t.Errorf("no tokens: got %s", res)
	}
	// A completed checkpoint without any snapshot: an expectation of no tokens and no
	// channels still has nothing to be compared with.
	empty := Reference{Snapshots: []ExpectedSnapshot{{CP: 4}}}
	b = newTB()
	b.trigger(4)
	b.complete(4)
	if res := ExpectedSnapshots(b.events, empty); res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "without any snapshot") {
		t.Errorf("no snapshot at all: got %s", res)
	}
	// A channel only its sender counts: the receiver's snapshot is missing, so what the
	// channel held is not recorded, whatever the expectation says of it.
	senderOnly := Reference{Snapshots: []ExpectedSnapshot{{CP: 4, Tokens: map[string]int64{"N1": 0}}}}
	b = newTB()
	b.trigger(4)
	b.snap("N1", 4, "tokens=0", "sent.N2=2")
	b.complete(4)
	if res := ExpectedSnapshots(b.events, senderOnly); res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "without a snapshot of N2, the receiver of N1->N2") {
		t.Errorf("a channel only its sender counts: got %s", res)
	}
}

// TestRecordedListsMustMatchTheCounts: consistent-cut holds a list to its snapshot's counts.
func TestRecordedListsMustMatchTheCounts(t *testing.T) {
	for _, tc := range []struct{ list, want string }{
		{"1", "lists 1 messages from N1 (0 more left out) but counts 2"},
		{"2 2", "of 4 tokens in all ([2 2]) but records 3 tokens in flight"},
	} {
		res := ConsistentCut(goldenRun(tc.list).events, goldenRef())
		if res.Verdict != VerdictFail || !strings.Contains(res.String(), tc.want) {
			t.Errorf("list %q: got %s, want %q", tc.list, res, tc.want)
		}
	}
}

// TestUnlistedCountIsMissingEvidence: in a cut that lists recorded messages, a channel
// counted above zero without a list is not judged as if empty; consistent-cut is unknown.
func TestUnlistedCountIsMissingEvidence(t *testing.T) {
	b := newTB()
	b.trigger(4)
	b.snap("N2", 4, "tokens=0", "chan.N1=2", "chantokens.N1=3", "chanmsgs.N1=1 2", "recv.N1=0", "sent.N1=1")
	b.snap("N1", 4, "tokens=0", "chan.N2=1", "chantokens.N2=0", "recv.N2=0", "sent.N2=2")
	b.complete(4)
	res := ConsistentCut(b.events, Reference{TokenWorkload: true, TokenTotal: 3})
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "N1 counts 1 messages from N2 but lists none") {
		t.Fatalf("got %s", res)
	}
}

func TestWellFormedChecksRecordedLists(t *testing.T) {
	b := goldenRun("1 x")
	res := WellFormed(b.events)
	if res.Verdict != VerdictFail || !strings.Contains(res.String(), "chanmsgs.N1") {
		t.Fatalf("got %s", res)
	}
	b = goldenRun("1 2")
	b.snap("N3", 4, "chanmore.N1=-1")
	if res := WellFormed(b.events); res.Verdict != VerdictFail || !strings.Contains(res.String(), "chanmore.N1") {
		t.Fatalf("got %s", res)
	}
	if res := WellFormed(goldenRun("1 2").events); res.Verdict != VerdictPass {
		t.Fatalf("got %s", res)
	}
}

func TestReferenceFileCarriesSnapshots(t *testing.T) {
	ref := goldenRef()
	ref.Snapshots = append(ref.Snapshots, ExpectedSnapshot{CP: 6, Channels: map[string][]int64{"N2->N1": {}}})
	data := MarshalReference(ref)
	if !bytes.Contains(data, []byte(`{"cp": 4, "name": "script[2]", "tokens": {"N1": 0, "N2": 0}, "channels": {"N1->N2": [1, 2]}}`)) {
		t.Fatalf("written as:\n%s", data)
	}
	back, err := ParseReference(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, ref) {
		t.Fatalf("read back as %+v, want %+v", back, ref)
	}
	for _, tc := range []struct{ file, want string }{
		{`{"snapshots": [{"name": "x"}]}`, "reference.snapshots[0].cp: missing or zero"},
		{`{"snapshots": [{"cp": 1}, {"cp": 1}]}`, "reference.snapshots[1].cp: checkpoint 1 is expected twice"},
		{`{"snapshots": [{"cp": 1, "channels": {"N1N2": []}}]}`, `reference.snapshots[0].channels["N1N2"]: a channel is named from->to`},
		{`{"snapshots": [{"cp": 1, "tokens": {"N1": -1}}]}`, `reference.snapshots[0].tokens["N1"]: must be a non-negative integer`},
		{`{"snapshots": [{"cp": 1, "channels": {"N1->N2": [1, "a"]}}]}`, `reference.snapshots[0].channels["N1->N2"][1]: must be a non-negative integer`},
		{`{"snapshots": [{"cp": 1, "tick": 1}]}`, `reference.snapshots[0].tick: unknown field`},
	} {
		if _, err := ParseReference([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.file, err, tc.want)
		}
	}
}
