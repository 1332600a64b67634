package engine

import "fmt"

// Map transforms each record's value; the key and the RID stay.
type Map struct {
	Fn MapFn
}

// MapFn is a value transformation, as data so that scenarios can describe it.
type MapFn struct {
	// Op is "add" (value + Arg), "mul" (value * Arg) or "identity".
	Op  string
	Arg int64
}

func (f MapFn) apply(v int64) int64 {
	switch f.Op {
	case "add":
		return v + f.Arg
	case "mul":
		return v * f.Arg
	case "identity", "":
		return v
	}
	panic(invariantf("engine: unknown map op %q (validation lets none through)", f.Op))
}

func (Map) Kind() string              { return "map" }
func (Map) inputs() (least, most int) { return 1, 1 }
func (Map) outputs() bool             { return true }
func (m Map) validate(*Graph, *Operator) error {
	switch m.Fn.Op {
	case "add", "mul", "identity", "":
		return nil
	}
	return fmt.Errorf("unknown map op %q (want add, mul or identity)", m.Fn.Op)
}

// Filter keeps the records whose value modulo Modulus equals Remainder.
type Filter struct {
	Modulus, Remainder int64
}

func (f Filter) keep(v int64) bool {
	r := v % f.Modulus
	if r < 0 {
		r += f.Modulus
	}
	return r == f.Remainder
}

func (Filter) Kind() string              { return "filter" }
func (Filter) inputs() (least, most int) { return 1, 1 }
func (Filter) outputs() bool             { return true }
func (f Filter) validate(*Graph, *Operator) error {
	if f.Modulus < 1 || f.Remainder < 0 || f.Remainder >= f.Modulus {
		return fmt.Errorf("modulus %d, remainder %d: want modulus >= 1 and 0 <= remainder < modulus", f.Modulus, f.Remainder)
	}
	return nil
}

// Aggregate keeps one value per key (keyed state) and, for every input record, emits the
// key's updated aggregate under the input's RID. Its inputs must be hash-partitioned (or it
// must run as one task) so that every record of a key reaches the same task.
type Aggregate struct {
	Fn AggregateFn
}

// AggregateFn is the aggregation an Aggregate keeps per key.
type AggregateFn uint8

const (
	// Count counts the records of the key.
	Count AggregateFn = iota + 1
	// Sum adds up the values of the key.
	Sum
)

func (f AggregateFn) String() string {
	switch f {
	case Count:
		return "count"
	case Sum:
		return "sum"
	}
	return fmt.Sprintf("AggregateFn(%d)", uint8(f))
}

func (f AggregateFn) fold(acc int64, v int64) int64 {
	if f == Count {
		return acc + 1
	}
	return acc + v
}

func (a Aggregate) Kind() string            { return a.Fn.String() }
func (Aggregate) inputs() (least, most int) { return 1, 1 }
func (Aggregate) outputs() bool             { return true }
func (a Aggregate) validate(g *Graph, op *Operator) error {
	if a.Fn != Count && a.Fn != Sum {
		return fmt.Errorf("unknown aggregate function %d", a.Fn)
	}
	for _, e := range g.inEdges(op.Name) {
		if op.Parallelism > 1 && e.Partitioning != Hash {
			return fmt.Errorf("input edge %s must be hash-partitioned so that each key meets one task", e)
		}
	}
	return nil
}

// Union merges two inputs into one stream.
type Union struct{}

func (Union) Kind() string              { return "union" }
func (Union) inputs() (least, most int) { return 2, 2 }
func (Union) outputs() bool             { return true }

// Sink writes records to the external store; Type chooses the delivery guarantee.
type Sink struct {
	Type SinkType
}

// SinkType is how a sink writes to the external store.
type SinkType uint8

const (
	// TwoPhaseCommit writes each checkpoint interval's records in one store transaction,
	// pre-commits it at the snapshot and commits it when the checkpoint completes: exactly
	// once, with output visible one checkpoint late.
	TwoPhaseCommit SinkType = iota + 1
	// Upsert writes each record under its RID at once; replays overwrite with the same
	// value, so the stored result is exact although writes repeat.
	Upsert
	// Append appends each record at once: after a failover the replayed records appear
	// twice. The negative control of exactly-once checks.
	Append
)

func (k SinkType) String() string {
	switch k {
	case TwoPhaseCommit:
		return "2pc"
	case Upsert:
		return "upsert"
	case Append:
		return "append"
	}
	return fmt.Sprintf("SinkType(%d)", uint8(k))
}

func (s Sink) Kind() string            { return "sink(" + s.Type.String() + ")" }
func (Sink) inputs() (least, most int) { return 1, 1 }
func (Sink) outputs() bool             { return false }
func (s Sink) validate(*Graph, *Operator) error {
	if s.Type < TwoPhaseCommit || s.Type > Append {
		return fmt.Errorf("unknown sink type %d", s.Type)
	}
	return nil
}
