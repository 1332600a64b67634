package engine

import (
	"fmt"
	"strconv"
	"time"
)

// Graph is a job: operators, each run as Parallelism tasks, and the edges between them. It is
// plain data, so a scenario file can describe it and a test can print it.
type Graph struct {
	Operators []Operator
	Edges     []Edge
	// MaxParallelism is the job's number of key groups (Flink's maximum parallelism), which
	// a Hash edge routes by: a key's group is its hash modulo MaxParallelism, and each task
	// of the receiving operator owns a contiguous range of groups (protocol.KeyGroupRangeOf).
	// It bounds the parallelism a keyed operator may ever be given. 0: each keyed operator
	// has as many groups as tasks, a key's task its hash modulo the parallelism.
	MaxParallelism int
}

// Operator is one logical operator. Its tasks are named "<Name>-<index>", index from 0,
// unless TaskNames names them.
type Operator struct {
	Name        string
	Parallelism int
	Logic       Logic
	// TaskNames, if set, are the ids of the operator's tasks by index, instead of
	// "<Name>-<index>": the processes of a JobKind's operator named as its user names them
	// (a chandy-lamport topology's N1, N2, ...). Only a JobKind's operator may set it, one
	// name per task; ValidTaskName says which names a task may take.
	TaskNames []string
	// RecordCost, if not zero, replaces Config.RecordCost for this operator's tasks: a slow
	// operator back-pressures the ones before it.
	RecordCost time.Duration
}

// Logic is what an operator does: one of Source, Map, Filter, Aggregate, Union and Sink, or
// a JobKind (engine/tokens.Workload).
type Logic interface {
	// Kind names the logic in errors and descriptions ("source", "sum", ...).
	Kind() string
}

// arity is what the barrier engine's logics say of their edges.
type arity interface {
	// inputs returns how many input edges the logic takes: min and max (-1: no bound).
	inputs() (least, most int)
	// outputs reports whether the logic may have output edges.
	outputs() bool
}

// edgesOf returns the arity of l: a JobKind's operator has no job-graph edges.
func edgesOf(l Logic) (least, most int, outputs bool) {
	if a, ok := l.(arity); ok {
		least, most = a.inputs()
		return least, most, a.outputs()
	}
	return 0, 0, false
}

// Edge connects two operators. Records from From's tasks go to To's tasks as Partitioning
// says.
type Edge struct {
	From, To     string
	Partitioning Partitioning
}

func (e Edge) String() string { return fmt.Sprintf("%s->%s (%s)", e.From, e.To, e.Partitioning) }

// Partitioning says which downstream task a record goes to.
type Partitioning uint8

const (
	// Forward sends task i's records to task i of the next operator (same parallelism).
	Forward Partitioning = iota + 1
	// Hash sends a record to the task that owns its key (a hash of the key, modulo the
	// downstream parallelism), so all records of a key meet in one task.
	Hash
	// Rebalance sends records round-robin over all downstream tasks.
	Rebalance
	// Broadcast sends every record to every downstream task.
	Broadcast
)

func (p Partitioning) String() string {
	switch p {
	case Forward:
		return "forward"
	case Hash:
		return "hash"
	case Rebalance:
		return "rebalance"
	case Broadcast:
		return "broadcast"
	}
	return fmt.Sprintf("Partitioning(%d)", uint8(p))
}

// ParsePartitioning reads the text form of a Partitioning.
func ParsePartitioning(s string) (Partitioning, error) {
	for p := Forward; p <= Broadcast; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("engine: unknown partitioning %q (want forward, hash, rebalance or broadcast)", s)
}

// TaskID returns the stable id of task index of operator op: "<op>-<index>".
func TaskID(op string, index int) string { return op + "-" + strconv.Itoa(index) }

// TaskID returns the id of the operator's task index: its name in TaskNames, if the
// operator names its tasks, else "<Name>-<index>".
func (op *Operator) TaskID(index int) string {
	if op.TaskNames != nil {
		return op.TaskNames[index]
	}
	return TaskID(op.Name, index)
}

// hasSink reports whether the job writes to the external store: whether it has a Sink.
func (g *Graph) hasSink() bool {
	for i := range g.Operators {
		if _, ok := g.Operators[i].Logic.(Sink); ok {
			return true
		}
	}
	return false
}

// Operator returns the operator called name, or nil.
func (g *Graph) Operator(name string) *Operator {
	for i := range g.Operators {
		if g.Operators[i].Name == name {
			return &g.Operators[i]
		}
	}
	return nil
}

// Tasks returns every task id of the job, operator by operator in graph order, index by
// index: the order in which the engine deploys, snapshots and reports tasks.
func (g *Graph) Tasks() []string {
	var ids []string
	for i := range g.Operators {
		op := &g.Operators[i]
		for j := 0; j < op.Parallelism; j++ {
			ids = append(ids, op.TaskID(j))
		}
	}
	return ids
}

// inEdges returns the edges into op, in graph order; an edge's position is the input index
// the operator sees (Union's first and second input).
func (g *Graph) inEdges(op string) []Edge {
	var in []Edge
	for _, e := range g.Edges {
		if e.To == op {
			in = append(in, e)
		}
	}
	return in
}

// outEdges returns the edges out of op, in graph order.
func (g *Graph) outEdges(op string) []Edge {
	var out []Edge
	for _, e := range g.Edges {
		if e.From == op {
			out = append(out, e)
		}
	}
	return out
}
