package chandylamport_test

import (
	"fmt"

	cl "github.com/ckptsim/ckptsim/protocol/chandylamport"
)

// A snapshot of three processes in a cycle (a->b->c->a) that pass tokens around while the
// snapshot runs. The host here is a few closures: FIFO queues for channels, a map of
// balances for the application, and a loop that carries out each process's outputs.
func Example() {
	g, err := cl.NewGraph([]cl.ProcessID{"a", "b", "c"}, []cl.Channel{{From: "a", To: "b"}, {From: "b", To: "c"}, {From: "c", To: "a"}})
	check(err)
	balance := map[cl.ProcessID]int{"a": 10, "b": 10, "c": 10}
	processes := map[cl.ProcessID]*cl.Process[int, int]{}
	for _, id := range g.Processes() {
		processes[id], err = cl.NewProcess[int, int](cl.Config{ID: id, Inputs: g.Inputs(id), Outputs: g.Outputs(id)})
		check(err)
	}
	collector, err := cl.NewCollector[int, int](g, 0)
	check(err)

	// A channel carries token transfers (amounts) and markers, in one FIFO order.
	type item struct {
		marker *cl.Marker
		tokens int
	}
	queues := map[cl.Channel][]item{}
	var snapshot cl.GlobalSnapshot[int, int]

	// carryOut does what the process asks, in order, until it asks nothing more.
	carryOut := func(p *cl.Process[int, int]) {
		for outputs := p.Ready(); len(outputs) > 0; outputs = p.Ready() {
			for _, o := range outputs {
				switch o := o.(type) {
				case cl.RecordState:
					check(p.StateRecorded(o.Snapshot, balance[o.Process]))
				case cl.Marker:
					queues[o.Channel] = append(queues[o.Channel], item{marker: &o})
				case cl.Report[int, int]:
					g, complete, err := collector.AddReport(o)
					check(err)
					if complete {
						snapshot = g
					}
				case cl.Abort:
					check(collector.AddAbort(o))
				}
			}
		}
	}
	send := func(from, to cl.ProcessID, tokens int) {
		balance[from] -= tokens
		c := cl.Channel{From: from, To: to}
		queues[c] = append(queues[c], item{tokens: tokens})
	}
	deliver := func(from, to cl.ProcessID) {
		c := cl.Channel{From: from, To: to}
		next := queues[c][0]
		queues[c] = queues[c][1:]
		p := processes[to]
		if next.marker != nil {
			check(p.HandleMarker(*next.marker))
			carryOut(p)
			return
		}
		balance[to] += next.tokens
		check(p.Receive(from, next.tokens))
	}

	send("a", "b", 3)                    // a: 7
	send("c", "a", 4)                    // c: 6
	id, err := processes["a"].Initiate() // a records 7 and sends a marker to b
	check(err)
	check(collector.Start(id))
	carryOut(processes["a"])
	send("b", "c", 5) // b: 5, before b records
	deliver("a", "b") // the 3 tokens: b has 8
	deliver("a", "b") // the marker: b records 8 and sends a marker to c
	send("a", "b", 2) // sent after a recorded, so outside the snapshot: a has 5
	deliver("c", "a") // the 4 tokens reach a after it recorded: c->a's recorded state
	deliver("b", "c") // the 5 tokens: c has 11
	deliver("b", "c") // the marker: c records 11 and sends a marker to a
	deliver("c", "a") // the marker closes a's only input: a reports, the snapshot completes

	fmt.Println(snapshot)
	recorded := 0
	for _, s := range snapshot.States {
		recorded += s.State
	}
	for _, c := range snapshot.Channels {
		for _, tokens := range c.Messages {
			recorded += tokens
		}
	}
	now := 0
	for _, tokens := range balance {
		now += tokens
	}
	for _, q := range queues {
		for _, it := range q {
			now += it.tokens
		}
	}
	fmt.Printf("tokens in the snapshot: %d, in the system now: %d\n", recorded, now)
	// Output:
	// snapshot a#1
	//   a: 7
	//   b: 8
	//   c: 11
	//   a->b=[]
	//   b->c=[]
	//   c->a=[4]
	// tokens in the snapshot: 30, in the system now: 30
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
