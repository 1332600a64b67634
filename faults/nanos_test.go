package faults

import (
	"encoding/json"
	"testing"
)

// TestSpansAreNanosecondsInFiles: a fault and a trigger take Durations in Go and write them
// as the integer nanoseconds every file so far holds, and read them back the same.
func TestSpansAreNanosecondsInFiles(t *testing.T) {
	e := Entry{Trigger: Trigger{Type: OnNth, Nth: 2, Match: Match{Kind: "snapshot.ack"}, After: Millis(3)},
		Fault: Fault{Kind: NetDelay, From: "a", To: "b", Delay: Millis(5), Window: Seconds(1)}}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"trigger":{"type":"nth","kind":"snapshot.ack","nth":2,"from_ns":3000000},"fault":{"kind":"net.delay","from":"a","to":"b","window_ns":1000000000,"delay_ns":5000000}}`
	if string(data) != want {
		t.Errorf("written as %s\n     want %s", data, want)
	}
	var back Entry
	if err := json.Unmarshal(data, &back); err != nil || back != e {
		t.Errorf("read back as %+v (%v), want %+v", back, err, e)
	}
	if err := json.Unmarshal([]byte(`{"trigger":{"type":"at","at_ns":"5ms"},"fault":{"kind":"crash.coordinator"}}`), &back); err == nil {
		t.Error("a span as text was accepted where files hold nanoseconds")
	}
}
