package engine

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// Rescaling is a resubmission with a new parallelism, as a user stops a Flink job and
// starts it again from a retained checkpoint with -p: the new job's tasks take the state
// of the old job's tasks, redistributed (restore_rescaled.go). The new plan is made when
// the job is resubmitted and put in place once the failover that follows has cancelled
// the old tasks, so that no task of one plan runs beside tasks of the other.
//
// What may be rescaled is what the engine can redistribute without changing the job's
// output, so that a reference computed for the first parallelism still judges the run:
//   - keyed state by key group: an aggregate is rescaled only behind Hash edges, in a
//     job with a MaxParallelism (without one a key's group is its task, and changes);
//   - a source's partitions, each with its offset: union list state, given whole to every
//     new task, which keeps its partitions' offsets (union.go);
//   - a two-phase-commit sink's pending transactions: a new task takes over the
//     transactions of the old tasks it adopts (index modulo the new parallelism);
//   - stateless operators and the other sinks;
//   - channel state of unaligned checkpoints (and aligned ones with a timeout), each record
//     to the new task its edge now routes it to (restore_channels.go), as Flink does since
//     1.13.
//
// Refused: operators behind Rebalance or
// Broadcast edges (the records a key's task sees, or how many copies of a record there
// are, would change with the parallelism), a source whose splits the coordinator assigns,
// and a checkpoint with a finished task (protocol.Restored.Rescaled).

// Rescale stops the job and submits it again from the latest completed checkpoint in
// restore mode mode, with operator op and every operator forward edges tie to it at
// parallelism p. Like Resubmit it leaves the start of the new coordinator to the cluster
// manager. It refuses what Resubmit refuses and a rescale the engine cannot redistribute
// (see above), saying why.
func (rt *Runtime) Rescale(mode protocol.RestoreMode, op string, p int) error {
	if rt.kind != nil {
		return fmt.Errorf("engine: a %s job is not rescaled", rt.kindName())
	}
	g, err := rescaledGraph(&rt.cfg, op, p)
	if err != nil {
		return err
	}
	from, err := rt.resubmittable()
	if err != nil {
		return err
	}
	if err := rt.finishedIn(from); err != nil {
		return err
	}
	restored := protocol.Restored{From: protocol.CheckpointID(from), Mode: mode, Rescaled: true}
	rt.resubmitFrom(restored, newJobPlanWith(g, rt.plan), trace.JobRescale(from, mode.String(), op, p, g.Tasks()))
	return nil
}

// CheckRescale reports why the engine would refuse to rescale a job of configuration cfg
// with op at parallelism p (see Rescale), or nil: a generator draws only rescales it makes.
// It does not know whether the job will have a checkpoint to restore.
func CheckRescale(cfg *Config, op string, p int) error {
	_, err := rescaledGraph(cfg, op, p)
	return err
}

// rescaledGraph returns cfg's graph with op, and the operators forward edges tie to it, at
// parallelism p, or why the engine will not rescale it so.
func rescaledGraph(cfg *Config, op string, p int) (*Graph, error) {
	g := cfg.Graph
	g.Operators = slices.Clone(g.Operators)
	if g.Operator(op) == nil {
		return nil, fmt.Errorf("engine: rescale: no operator %q", op)
	}
	for _, name := range forwardTied(&g, op) {
		o := g.Operator(name)
		if err := rescalable(&g, o); err != nil {
			return nil, fmt.Errorf("engine: rescale %s to %d: %w", op, p, err)
		}
		o.Parallelism = p
	}
	c := *cfg
	c.Graph = g
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("engine: rescale %s to %d: %w", op, p, err)
	}
	return &g, nil
}

// forwardTied returns op and every operator joined to it by a chain of forward edges, in
// graph order: they share a parallelism.
func forwardTied(g *Graph, op string) []string {
	tied := map[string]bool{op: true}
	for grew := true; grew; {
		grew = false
		for _, e := range g.Edges {
			if e.Partitioning == Forward && tied[e.From] != tied[e.To] {
				tied[e.From], tied[e.To], grew = true, true, true
			}
		}
	}
	var out []string
	for _, o := range g.Operators {
		if tied[o.Name] {
			out = append(out, o.Name)
		}
	}
	return out
}

// rescalable says why the engine cannot give op another parallelism, or nil.
func rescalable(g *Graph, op *Operator) error {
	for _, e := range g.inEdges(op.Name) {
		if e.Partitioning == Rebalance || e.Partitioning == Broadcast {
			return fmt.Errorf("operator %q is behind a %s edge", op.Name, e.Partitioning)
		}
		if e.From == op.Name {
			return fmt.Errorf("operator %q feeds itself", op.Name)
		}
	}
	switch l := op.Logic.(type) {
	case Source:
		if l.Enumerated {
			return fmt.Errorf("source %q takes its splits from the coordinator", op.Name)
		}
	case Aggregate:
		for _, e := range g.inEdges(op.Name) {
			if e.Partitioning != Hash {
				return fmt.Errorf("aggregate %q is behind a %s edge: its keys have no key groups", op.Name, e.Partitioning)
			}
		}
		if g.MaxParallelism == 0 {
			return fmt.Errorf("aggregate %q: the job has no max parallelism, so its keys' groups would change", op.Name)
		}
	}
	return nil
}

// finishedIn refuses a rescale from checkpoint cp when a task had finished by it.
func (rt *Runtime) finishedIn(cp uint64) error {
	if rt.coord == nil {
		return nil
	}
	for _, cc := range rt.coord.stored {
		if uint64(cc.ID) != cp {
			continue
		}
		for _, ts := range cc.Tasks {
			if ts.Snapshot.Final {
				return fmt.Errorf("engine: checkpoint %d holds the final snapshot of %s: a finished task is not rescaled", cp, ts.Task)
			}
		}
	}
	return nil
}

// rescaledFrom reports whether restoring cp redistributes state: the job was rescaled from
// it, so its snapshots are the earlier job's tasks'.
func (rt *Runtime) rescaledFrom(cp *protocol.CompletedCheckpoint) bool {
	r := rt.resubmit.restored
	return r.Rescaled && cp != nil && cp.ID == r.From
}

// adoptPlan puts a rescaled job's plan in place, once the old tasks are cancelled.
func (rt *Runtime) adoptPlan() {
	next := rt.resubmit.next
	if next == nil {
		return
	}
	rt.resubmit.next = nil
	rt.plan = next
	rt.cfg.Graph = *next.graph
	rt.tasks = make([]*task, len(next.tasks))
}

// topology is the coordinator's topology: the rescaled job's once it was resubmitted.
func (rt *Runtime) topology() protocol.Topology {
	if next := rt.resubmit.next; next != nil {
		return next.topo
	}
	return rt.plan.topo
}

// oldParallelism counts the tasks of operator op that checkpoint cp holds snapshots of.
func oldParallelism(cp *protocol.CompletedCheckpoint, op string) int {
	n := 0
	for {
		if _, ok := cp.Snapshot(protocol.TaskID(TaskID(op, n))); !ok {
			return n
		}
		n++
	}
}
