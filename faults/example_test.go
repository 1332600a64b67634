package faults_test

import (
	"fmt"

	"github.com/ckptsim/ckptsim/faults"
)

// A schedule as an artifact stores it, read back strictly and printed one entry per line.
func ExampleParseSchedule() {
	s, err := faults.ParseSchedule([]byte(`{"entries": [
		{"trigger": {"type": "nth", "kind": "snapshot.ack", "task": "sum-2", "nth": 3},
		 "fault":   {"kind": "crash.task", "task": "sum-2"}},
		{"trigger": {"type": "nth", "kind": "checkpoint.complete", "nth": 1},
		 "fault":   {"kind": "crash.coordinator"}},
		{"trigger": {"type": "at", "at_ns": 1500000000},
		 "fault":   {"kind": "net.partition", "from": "src-0", "to": "sum-2", "window_ns": 250000000}}
	]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	fmt.Println("out of model:", s.OutOfModel())

	_, err = faults.ParseSchedule([]byte(`{"entries": [{"trigger": {"type": "at"},
		"fault": {"kind": "net.clog", "from": "src-0", "to": "sum-2"}}]}`))
	fmt.Println(err)
	// Output:
	// crash.task task=sum-2 when nth=3 on=snapshot.ack task=sum-2
	// crash.coordinator when nth=1 on=checkpoint.complete
	// net.partition from=src-0 to=sum-2 window=250ms when t=1.5s
	// out of model: false
	// faults: entries[0].fault.window_ns: required for net.clog
}
