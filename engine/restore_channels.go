package engine

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// A rescaled job's channels are new, so the channel state of the restored checkpoint
// (records an unaligned barrier overtook: in an input channel of the snapshot's task, or
// queued on one of its outputs) has no channel of its own to be replayed on. Each record
// goes instead to the new task its edge now routes it to: by the key's group among the new
// tasks behind a Hash edge, to the old index modulo the new parallelism behind a Forward
// edge, and to the same index when the receiving operator kept its parallelism. That task
// processes it on restore, ahead of any new input, as a task replays its own channel state:
// the records a receiver had taken in first, then those its sender had still queued for it,
// in the order they were sent. The replayed records belong to no channel of the new job, so
// they count in no sent or recv and the new channels' counts start at zero. task.restore
// lists how many records the task replayed from each snapshot (trace.WithReplayed), which
// the rule "channel state replayed exactly once" adds up.

// adoptedBatch is records of the earlier job's channel state for one input edge of the
// operator (its position among the operator's input edges).
type adoptedBatch struct {
	side    int
	records []rec
}

// channelSources returns the earlier job's tasks whose channel state may hold records for
// the task: the old tasks of its operator (their inputs) and of the operators that feed it
// (their outputs). None when the job's checkpoints hold no channel state.
func (t *task) channelSources(restore *protocol.CompletedCheckpoint) []string {
	if !t.rt.plan.overtaking {
		return nil
	}
	op := t.plan.op.Name
	ups := upstreamOps(t.rt.plan.graph, op)
	if len(ups) == 0 {
		return nil // a source: no channel leads to it
	}
	var out []string
	for _, name := range append([]string{op}, ups...) {
		for j := range oldParallelism(restore, name) {
			out = append(out, TaskID(name, j))
		}
	}
	return out
}

// upstreamOps returns the operators with an edge into op, once each, in edge order.
func upstreamOps(g *Graph, op string) []string {
	var out []string
	for _, e := range g.inEdges(op) {
		if !slices.Contains(out, e.From) {
			out = append(out, e.From)
		}
	}
	return out
}

// adoptChannelState picks, from the snapshots read (by task), the channel-state records
// the task now receives: batches to process and how many it took from each snapshot.
func (t *task) adoptChannelState(restore *protocol.CompletedCheckpoint, read map[string]*snapshotData) ([]adoptedBatch, []trace.Entry, error) {
	old := oldJobPlan(restore, t.rt.plan)
	op := t.plan.op.Name
	inEdges := t.rt.plan.graph.inEdges(op)
	route := t.receiverOf(restore)
	counts := map[string]int{}
	var batches []adoptedBatch
	take := func(sender string, side, index int, records []rec) {
		var mine []rec
		for _, r := range records {
			if route(inEdges[side], index, r) == t.plan.index {
				mine = append(mine, r)
			}
		}
		if len(mine) > 0 {
			batches = append(batches, adoptedBatch{side: side, records: mine})
			counts[sender] += len(mine)
		}
	}
	sources := t.channelSources(restore)
	for _, id := range sources {
		d, tp := read[id], old.byID[id]
		if d == nil || tp == nil {
			return nil, nil, fmt.Errorf("engine: %s: no snapshot of %s read for its channel state", t.plan.id, id)
		}
		if tp.op.Name == op {
			for k, recs := range d.channel {
				take(id, tp.inputEdge[k], tp.index, recs)
			}
			continue
		}
		for k, recs := range d.output {
			to := old.byID[string(tp.outputs[k].To)]
			if side := slices.IndexFunc(inEdges, func(e Edge) bool { return e.From == tp.op.Name }); to.op.Name == op && side >= 0 {
				take(id, side, to.index, recs)
			}
		}
	}
	var replayed []trace.Entry
	for _, id := range sources {
		if n := counts[id]; n > 0 {
			replayed = append(replayed, trace.Entry{Key: id, Value: int64(n)})
		}
	}
	return batches, replayed, nil
}

// receiverOf returns how a record, once on the channel of edge e to old task index of the
// task's operator, is routed now: the index of the new task it goes to.
func (t *task) receiverOf(restore *protocol.CompletedCheckpoint) func(e Edge, index int, r rec) int {
	p := t.plan.op.Parallelism
	kept := oldParallelism(restore, t.plan.op.Name) == p
	groups := t.rt.cfg.Graph.MaxParallelism
	if groups == 0 {
		groups = p
	}
	return func(e Edge, index int, r rec) int {
		switch {
		case kept:
			return index
		case e.Partitioning == Hash:
			return protocol.OperatorIndexOf(protocol.KeyGroupOf(t.rt.plan.catalog.keyGroup[r.key], groups), groups, p)
		}
		return index % p
	}
}

// oldJobPlan plans the job as it ran when it took restore: the graph of cur at the
// parallelisms of restore's snapshots.
func oldJobPlan(restore *protocol.CompletedCheckpoint, cur *jobPlan) *jobPlan {
	g := *cur.graph
	g.Operators = slices.Clone(g.Operators)
	for i := range g.Operators {
		if n := oldParallelism(restore, g.Operators[i].Name); n > 0 {
			g.Operators[i].Parallelism = n
		}
	}
	return newJobPlanOf(&g, cur.catalog, cur.overtaking)
}

// replayAdopted processes the channel state a rescaled restore adopted, a buffer at a
// time, as it would its own channel state: counted on no channel.
func (t *task) replayAdopted(batches []adoptedBatch) {
	for _, b := range batches {
		for recs := b.records; len(recs) > 0 && t.phase == phaseRunning; {
			n := min(len(recs), t.rt.cfg.Network.BufferRecords)
			if t.sink != nil {
				t.sink.write(recs[:n])
			} else {
				t.routeAll(t.op.process(b.side, recs[:n]))
			}
			recs = recs[n:]
		}
	}
}
