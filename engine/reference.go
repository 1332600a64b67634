package engine

import (
	"fmt"
	"slices"
	"strconv"
)

// Reference is what a failure-free run of a job produces, computed straight from the
// sources' logs without running the engine: the records each sink outputs (with their
// values), the final keyed state of each aggregate, and the final offset of each source
// partition. Exactly-once runs, with any failures, must commit exactly these records.
type Reference struct {
	// Output lists, per sink operator, the records it writes. A record reaches a sink
	// once per path (Broadcast multiplies), so a RID may repeat.
	Output map[string][]Record
	// State is the final aggregate per key, per aggregate operator.
	State map[string]map[string]int64
	// Offsets is the final offset per source partition, keyed "<source>:<partition>".
	Offsets map[string]int64
	// Balances is, for a token workload, the final balance per task; TokenTotal the
	// tokens every global snapshot must account for.
	Balances   map[string]int64
	TokenTotal int64
}

// ReferenceOptions bounds what a reference covers.
type ReferenceOptions struct {
	// UnboundedRecords is how many records per partition to take from unbounded sources
	// (which have no end): the reference then covers that prefix of their logs.
	UnboundedRecords int64
}

// ComputeReference computes the reference of graph g. It fails for graphs whose output
// depends on timing: an aggregate downstream of an edge that interleaves a key's records
// from several channels (Rebalance or Broadcast to more than one task), and cyclic graphs.
func ComputeReference(g *Graph, opts ReferenceOptions) (*Reference, error) {
	if len(g.Operators) == 1 {
		if k, ok := g.Operators[0].Logic.(JobKind); ok {
			if err := g.validate(true); err != nil {
				return nil, fmt.Errorf("engine: no reference: %w", err)
			}
			return k.Reference(&g.Operators[0])
		}
	}
	if err := g.validate(false); err != nil {
		return nil, fmt.Errorf("engine: no reference: %w", err)
	}
	ref := &Reference{Output: make(map[string][]Record), State: make(map[string]map[string]int64), Offsets: make(map[string]int64)}
	streams := make(map[string][]Record, len(g.Operators))
	ordered := make(map[string]bool, len(g.Operators)) // per-key order is the log's order
	for _, name := range g.topologicalOrder() {
		op := g.Operator(name)
		in, keyOrder := referenceInput(g, op, streams, ordered)
		switch l := op.Logic.(type) {
		case Source:
			n := l.Records
			if n == 0 {
				n = opts.UnboundedRecords
			}
			in = slices.Grow(in, l.Partitions*int(n))
			for p := 0; p < l.Partitions; p++ {
				in = newPartitionLog(name, p, l).appendRecords(in, n)
				ref.Offsets[name+":"+strconv.Itoa(p)] = n
			}
			streams[name], ordered[name] = in, true
		case Map:
			out := make([]Record, len(in))
			for i, r := range in {
				r.Value = l.Fn.apply(r.Value)
				out[i] = r
			}
			streams[name], ordered[name] = out, keyOrder
		case Filter:
			out := make([]Record, 0, len(in))
			for _, r := range in {
				if l.keep(r.Value) {
					out = append(out, r)
				}
			}
			streams[name], ordered[name] = out, keyOrder
		case Union:
			streams[name], ordered[name] = in, keyOrder
		case Aggregate:
			if !keyOrder {
				return nil, fmt.Errorf("engine: no reference: the input of aggregate %q interleaves a key's records from several channels, so its output depends on timing", name)
			}
			state := make(map[string]int64)
			out := make([]Record, len(in))
			for i, r := range in {
				r.Value = l.Fn.fold(state[r.Key], r.Value)
				state[r.Key] = r.Value
				out[i] = r
			}
			ref.State[name] = state
			streams[name], ordered[name] = out, true
		case Sink:
			ref.Output[name] = in
		default:
			return nil, fmt.Errorf("engine: no reference for operator %q (%s)", name, op.Logic.Kind())
		}
	}
	return ref, nil
}

// referenceInput returns what operator op reads in the reference: its inputs' streams in
// edge order, each record as many times as its edge delivers it, and whether that input
// keeps each key's records in log order. The streams are never written once made, so a
// lone edge that delivers each record once is its upstream's stream itself, not a copy;
// otherwise the input is sized once, since growing it by appends was most of the cost of a
// generated sweep's references.
func referenceInput(g *Graph, op *Operator, streams map[string][]Record, ordered map[string]bool) ([]Record, bool) {
	edges := g.inEdges(op.Name)
	keyOrder, size := true, 0
	for _, e := range edges {
		if !ordered[e.From] || ((e.Partitioning == Rebalance || e.Partitioning == Broadcast) && op.Parallelism > 1) {
			keyOrder = false
		}
		size += len(streams[e.From]) * edgeCopies(e, op)
	}
	if len(edges) == 1 && edgeCopies(edges[0], op) == 1 {
		return streams[edges[0].From], keyOrder
	}
	if size == 0 {
		return nil, keyOrder
	}
	in := make([]Record, 0, size)
	for _, e := range edges {
		copies := edgeCopies(e, op)
		for _, r := range streams[e.From] {
			for range copies {
				in = append(in, r)
			}
		}
	}
	return in, keyOrder
}

// edgeCopies is how many copies of each record edge e delivers to op: one per task of op
// for a broadcast, one otherwise.
func edgeCopies(e Edge, op *Operator) int {
	if e.Partitioning == Broadcast {
		return op.Parallelism
	}
	return 1
}

// topologicalOrder returns the operators with every operator after its inputs, ties in
// graph order. The graph must be acyclic.
func (g *Graph) topologicalOrder() []string {
	indegree := make(map[string]int, len(g.Operators))
	for _, e := range g.Edges {
		indegree[e.To]++
	}
	var order []string
	done := make(map[string]bool, len(g.Operators))
	for len(order) < len(g.Operators) {
		progressed := false
		for _, op := range g.Operators {
			if done[op.Name] || indegree[op.Name] > 0 {
				continue
			}
			done[op.Name] = true
			order = append(order, op.Name)
			for _, e := range g.outEdges(op.Name) {
				indegree[e.To]--
			}
			progressed = true
		}
		if !progressed {
			panic(invariantf("engine: topological order of a cyclic graph"))
		}
	}
	return order
}

// OutputValues returns, for every RID any sink outputs, its values in ascending order (one
// per delivery): the form in which committed output is compared with the reference.
func (r *Reference) OutputValues() map[string][]int64 {
	out := make(map[string][]int64)
	sinks := make([]string, 0, len(r.Output))
	for s := range r.Output {
		sinks = append(sinks, s)
	}
	slices.Sort(sinks)
	for _, s := range sinks {
		for _, rec := range r.Output[s] {
			out[rec.RID] = append(out[rec.RID], rec.Value)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}
