package scenarios

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

// A drain's savepoint holds final snapshots only: every task finished its input before the
// drain's barrier reached it, and acknowledges a final snapshot for it.
func TestADrainHoldsFinalSnapshotsOnly(t *testing.T) {
	s, err := Lookup("stop-with-savepoint-drain")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, res, err := Execute(NewSimulation(), s, 1, RunOptions{Trace: &out}); err != nil || res.Unexpected {
		t.Fatalf("run: %v, %+v", err, res)
	}
	drain, acks := uint64(0), map[string]string{}
	for line := bufio.NewScanner(&out); line.Scan(); {
		var e struct {
			Kind, Task, Drain, Final string
			CP                       uint64
		}
		if json.Unmarshal(line.Bytes(), &e) != nil {
			continue
		}
		switch {
		case e.Kind == "checkpoint.trigger" && e.Drain == "true":
			drain = e.CP
		case e.Kind == "snapshot.ack" && drain != 0 && e.CP == drain:
			acks[e.Task] = e.Final
		}
	}
	if drain == 0 || len(acks) != 9 {
		t.Fatalf("drain %d, acks %v: want the drain and the acks of all 9 tasks", drain, acks)
	}
	for task, final := range acks {
		if final != "true" {
			t.Errorf("%s acknowledged a snapshot for drain %d that is not final", task, drain)
		}
	}
}
