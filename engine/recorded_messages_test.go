package engine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestRecordedMessagesAreListed: a JobKind's snapshot lists the messages recorded on a
// channel in order, at most MaxListedChannelMessages of them, and counts the rest in
// chanmore.<from>; a channel that recorded nothing gets no list.
func TestRecordedMessagesAreListed(t *testing.T) {
	if attrs := appendRecordedMessages(nil, "N1", nil); len(attrs) != 0 {
		t.Fatalf("nothing recorded: %v", attrs)
	}
	recs := []rec{{value: 3}, {value: 1}, {value: 2}}
	attrs := appendRecordedMessages(nil, "N1", recs)
	if len(attrs) != 1 || attrs[0] != (trace.Attr{Key: "chanmsgs.N1", Value: "3 1 2"}) {
		t.Fatalf("three recorded: %v", attrs)
	}
	var many []rec
	var want []string
	for i := range MaxListedChannelMessages + 5 {
		many = append(many, rec{value: int64(i + 1)})
		if i < MaxListedChannelMessages {
			want = append(want, strconv.Itoa(i+1))
		}
	}
	attrs = appendRecordedMessages(nil, "N2", many)
	if len(attrs) != 2 || attrs[0].Value != strings.Join(want, " ") || attrs[1] != (trace.Attr{Key: "chanmore.N2", Value: "5"}) {
		t.Fatalf("%d recorded: %v", len(many), attrs)
	}
}
