package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
)

// expectedOutput is the output reference of a job: for each record id the sinks commit, its
// value and how many times it is committed. It is built straight from the model's rows, one
// map entry a record and no other copy of them, since the reference of a large input is
// most of the memory a run holds before it starts. Sinks are read in name order and rows in
// the model's order, so that which record an error names does not depend on map order.
func expectedOutput(s *Scenario, model *engine.Reference) (map[string]checker.Expected, error) {
	rows := 0
	for _, records := range model.Output {
		rows += len(records)
	}
	out := make(map[string]checker.Expected, rows)
	for _, sink := range slices.Sorted(maps.Keys(model.Output)) {
		for _, rec := range model.Output[sink] {
			value := strconv.FormatInt(rec.Value, 10)
			e, seen := out[rec.RID]
			if !seen {
				split, offset, _ := engine.SplitRID(rec.RID)
				out[rec.RID] = checker.Expected{Value: value, Count: 1, Split: split, Offset: offset}
				continue
			}
			if e.Value != value {
				return nil, fmt.Errorf("scenarios: %s: record %s reaches the sink with different values, which the checkers cannot judge", s.Name, rec.RID)
			}
			// A record that reaches the sinks on several paths (a diamond, a broadcast) is
			// committed once per path, except by an idempotent sink: it upserts by record
			// id, so the copies, all of one value, are one row.
			if s.Sink.Kind != SinkIdempotent {
				e.Count++
				out[rec.RID] = e
			}
		}
	}
	return out, nil
}
