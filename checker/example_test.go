package checker_test

import (
	"fmt"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// A trace written by another engine, in ckptsim's schema: its sink was notified of
// checkpoint 1 before the checkpoint was durable, and after a crash it committed the
// restored transaction again without the store deduplicating it. The job then finished
// without record w2.
const otherEngineTrace = `{"kind":"trace.header","version":1,"scenario":"wordcount","seed":0,"build":"other-engine 0.3"}
{"seq":0,"t":100,"kind":"checkpoint.trigger","task":"coordinator","cp":1}
{"seq":1,"t":200,"kind":"sink.write","task":"sink-0","txn":"tx-1","rid":"w1","value":"apple=1"}
{"seq":2,"t":300,"kind":"snapshot.taken","task":"sink-0","cp":1,"state":"9f2c"}
{"seq":3,"t":400,"kind":"notify.complete","task":"sink-0","cp":1}
{"seq":4,"t":500,"kind":"checkpoint.complete","task":"coordinator","cp":1}
{"seq":5,"t":600,"kind":"sink.commit","task":"sink-0","cp":1,"txn":"tx-1","records":1}
{"seq":6,"t":700,"kind":"sink.write","task":"sink-0","txn":"tx-2","rid":"w2","value":"pear=1"}
{"seq":7,"t":800,"kind":"task.crash","task":"sink-0"}
{"seq":8,"t":900,"kind":"task.restore","task":"sink-0","cp":1,"state":"9f2c"}
{"seq":9,"t":1000,"kind":"sink.commit","task":"sink-0","cp":1,"txn":"tx-1","records":1}
{"seq":10,"t":1100,"kind":"task.finish","task":"sink-0"}
`

func Example() {
	_, events, err := trace.ReadAll(strings.NewReader(otherEngineTrace))
	if err != nil {
		panic(err)
	}
	ref := checker.Reference{
		Guarantee: checker.GuaranteeExactlyOnce,
		Output:    checker.ExpectOnce(map[string]string{"w1": "apple=1", "w2": "pear=1"}),
	}
	report := checker.Check(events, ref, checker.Options{})
	fmt.Println("verdict:", report.Verdict())
	for _, v := range report.Violations() {
		fmt.Println(v)
	}
	// Output:
	// verdict: fail
	// exactly-once seq=6 t=700 task=sink-0: record "w2" lost: its last write, in transaction "tx-2", was never committed
	// exactly-once seq=9 t=1000 task=sink-0 cp=1: record "w1" duplicated: committed 2 times, expected 1
	// at-least-once seq=6 t=700 task=sink-0: record "w2" lost: its last write, in transaction "tx-2", was never committed
	// listener-contract seq=3 t=400 task=sink-0 cp=1: completion notification for checkpoint 1 before its checkpoint.complete
	// listener-contract seq=9 t=1000 task=sink-0 cp=1: transaction "tx-1" committed again with effect (1 records), first committed at seq 5
	// durable-before-visible seq=3 t=400 task=sink-0 cp=1: sink-0 notified of checkpoint 1 before it was durably complete
}
