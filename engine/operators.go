package engine

import "fmt"

// operator is the per-task instance of a record-transforming Logic (Map, Filter, Aggregate,
// Union). Sources and sinks have their own task parts, since they talk to the outside.
type operator interface {
	// process handles one record from input (the index of its edge among the operator's
	// input edges) and emits what it derives.
	process(input int, record rec, emit func(rec))
	// snapshot writes the operator's state; restore reads it back.
	snapshot(w *stateWriter)
	restore(r *stateReader)
}

func newOperator(logic Logic, c *catalog) operator {
	switch l := logic.(type) {
	case Map:
		return mapOperator{fn: l.Fn}
	case Filter:
		return filterOperator{filter: l}
	case Aggregate:
		return &aggregateOperator{fn: l.Fn, state: newKeyedState(c)}
	case Union:
		return passOperator{}
	}
	panic(fmt.Sprintf("engine: no operator for logic %s", logic.Kind()))
}

type mapOperator struct{ fn MapFn }

func (m mapOperator) process(_ int, record rec, emit func(rec)) {
	record.value = m.fn.apply(record.value)
	emit(record)
}
func (mapOperator) snapshot(*stateWriter) {}
func (mapOperator) restore(*stateReader)  {}

type filterOperator struct{ filter Filter }

func (f filterOperator) process(_ int, record rec, emit func(rec)) {
	if f.filter.keep(record.value) {
		emit(record)
	}
}
func (filterOperator) snapshot(*stateWriter) {}
func (filterOperator) restore(*stateReader)  {}

// passOperator forwards every record of every input: Union.
type passOperator struct{}

func (passOperator) process(_ int, record rec, emit func(rec)) { emit(record) }
func (passOperator) snapshot(*stateWriter)                     {}
func (passOperator) restore(*stateReader)                      {}

// aggregateOperator keeps one aggregate per key and emits the updated aggregate under the
// input record's RID.
type aggregateOperator struct {
	fn    AggregateFn
	state *keyedState
}

func (a *aggregateOperator) process(_ int, record rec, emit func(rec)) {
	v := a.fn.fold(a.state.get(record.key), record.value)
	a.state.put(record.key, v)
	record.value = v
	emit(record)
}
func (a *aggregateOperator) snapshot(w *stateWriter) { a.state.snapshot(w) }
func (a *aggregateOperator) restore(r *stateReader)  { a.state.restore(r) }
