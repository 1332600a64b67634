package engine

import "fmt"

// operator is the per-task instance of a record-transforming Logic (Map, Filter, Aggregate,
// Union). Sources and sinks have their own task parts, since they talk to the outside.
type operator interface {
	// process handles one record from input (the index of its edge among the operator's
	// input edges) and emits what it derives.
	process(input int, rec Record, emit func(Record))
	// snapshot writes the operator's state; restore reads it back.
	snapshot(w *stateWriter)
	restore(r *stateReader)
}

func newOperator(logic Logic) operator {
	switch l := logic.(type) {
	case Map:
		return mapOperator{fn: l.Fn}
	case Filter:
		return filterOperator{filter: l}
	case Aggregate:
		return &aggregateOperator{fn: l.Fn, state: newKeyedState()}
	case Union:
		return passOperator{}
	}
	panic(fmt.Sprintf("engine: no operator for logic %s", logic.Kind()))
}

type mapOperator struct{ fn MapFn }

func (m mapOperator) process(_ int, rec Record, emit func(Record)) {
	rec.Value = m.fn.apply(rec.Value)
	emit(rec)
}
func (mapOperator) snapshot(*stateWriter) {}
func (mapOperator) restore(*stateReader)  {}

type filterOperator struct{ filter Filter }

func (f filterOperator) process(_ int, rec Record, emit func(Record)) {
	if f.filter.keep(rec.Value) {
		emit(rec)
	}
}
func (filterOperator) snapshot(*stateWriter) {}
func (filterOperator) restore(*stateReader)  {}

// passOperator forwards every record of every input: Union.
type passOperator struct{}

func (passOperator) process(_ int, rec Record, emit func(Record)) { emit(rec) }
func (passOperator) snapshot(*stateWriter)                        {}
func (passOperator) restore(*stateReader)                         {}

// aggregateOperator keeps one aggregate per key and emits the updated aggregate under the
// input record's RID.
type aggregateOperator struct {
	fn    AggregateFn
	state *keyedState
}

func (a *aggregateOperator) process(_ int, rec Record, emit func(Record)) {
	v := a.fn.fold(a.state.get(rec.Key), rec.Value)
	a.state.put(rec.Key, v)
	rec.Value = v
	emit(rec)
}
func (a *aggregateOperator) snapshot(w *stateWriter) { a.state.snapshot(w) }
func (a *aggregateOperator) restore(r *stateReader)  { a.state.restore(r) }
