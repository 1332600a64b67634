package engine

import (
	"slices"
)

// operator is the per-task instance of a record-transforming Logic (Map, Filter, Aggregate,
// Union). Sources and sinks have their own task parts, since they talk to the outside.
type operator interface {
	// process handles the records of one buffer from input (the index of its edge among the
	// operator's input edges) and returns what it derives from them, in order. The result
	// may be records itself or a slice the operator reuses on its next call, so the caller
	// must be done with it by then.
	process(input int, records []rec) []rec
	// snapshot writes the operator's state; restore reads it back.
	snapshot(w *stateWriter)
	restore(r *stateReader)
}

func newOperator(logic Logic, c *catalog) operator {
	switch l := logic.(type) {
	case Map:
		return &mapOperator{fn: l.Fn}
	case Filter:
		return &filterOperator{filter: l}
	case Aggregate:
		return &aggregateOperator{fn: l.Fn, state: newKeyedState(c)}
	case Union:
		return passOperator{}
	}
	panic(invariantf("engine: no operator for logic %s", logic.Kind()))
}

type mapOperator struct {
	fn  MapFn
	out []rec // reused by process
}

func (m *mapOperator) process(_ int, records []rec) []rec {
	m.out = slices.Grow(m.out[:0], len(records))[:len(records)]
	for k, record := range records {
		record.value = m.fn.apply(record.value)
		m.out[k] = record
	}
	return m.out
}
func (*mapOperator) snapshot(*stateWriter) {}
func (*mapOperator) restore(*stateReader)  {}

type filterOperator struct {
	filter Filter
	out    []rec // reused by process
}

func (f *filterOperator) process(_ int, records []rec) []rec {
	f.out = f.out[:0]
	for _, record := range records {
		if f.filter.keep(record.value) {
			f.out = append(f.out, record)
		}
	}
	return f.out
}
func (*filterOperator) snapshot(*stateWriter) {}
func (*filterOperator) restore(*stateReader)  {}

// passOperator forwards every record of every input: Union.
type passOperator struct{}

func (passOperator) process(_ int, records []rec) []rec { return records }
func (passOperator) snapshot(*stateWriter)              {}
func (passOperator) restore(*stateReader)               {}

// aggregateOperator keeps one aggregate per key and emits the updated aggregate under the
// input record's RID.
type aggregateOperator struct {
	fn    AggregateFn
	state *keyedState
	out   []rec // reused by process
}

func (a *aggregateOperator) process(_ int, records []rec) []rec {
	a.out = slices.Grow(a.out[:0], len(records))[:len(records)]
	for k, record := range records {
		v := a.fn.fold(a.state.get(record.key), record.value)
		a.state.put(record.key, v)
		record.value = v
		a.out[k] = record
	}
	return a.out
}
func (a *aggregateOperator) snapshot(w *stateWriter) { a.state.snapshot(w) }
func (a *aggregateOperator) restore(r *stateReader)  { a.state.restore(r) }
