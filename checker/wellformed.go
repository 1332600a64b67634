package checker

import (
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// required lists, per kind the checkers read, the fields an event of that kind must carry.
// Kinds not listed are accepted as they are: the schema may grow.
var required = map[string][]string{
	trace.KindCheckpointTrigger:  {"cp"},
	trace.KindCheckpointPersist:  {"cp"},
	trace.KindCheckpointComplete: {"cp"},
	trace.KindCheckpointAbort:    {"cp"},
	trace.KindBarrierSend:        {"task", "to", "cp"},
	trace.KindBarrierRecv:        {"task", "from", "cp"},
	trace.KindSnapshotTaken:      {"task", "cp"},
	trace.KindSnapshotAck:        {"task", "cp"},
	trace.KindSnapshotDecline:    {"task", "cp"},
	trace.KindNotifyComplete:     {"task", "cp"},
	trace.KindNotifyAbort:        {"task", "cp"},
	trace.KindTaskCrash:          {"task"},
	trace.KindTaskRestore:        {"task"},
	trace.KindTaskFinish:         {"task"},
	trace.KindSinkWrite:          {"task", "txn", "rid"},
	trace.KindSinkWrites:         {"task", "txn", trace.AttrRIDs},
	trace.KindSinkPrecommit:      {"task", "txn"},
	trace.KindSinkCommit:         {"task", "txn"},
	trace.KindSinkAbort:          {"task", "txn"},
	trace.KindSinkRead:           {"task", "records"},
	trace.KindSinkUpsert:         {"task", "rid"},
	trace.KindPhase:              {"phase"},
}

// WellFormed checks what every other property takes for granted: sequence numbers count up
// by one, virtual time never goes back, the kinds the checkers read carry their fields, and
// numeric attributes (records, start, tokens and the per-channel counts) are non-negative
// decimal integers, with start no later than the event. A trace from another engine that fails
// here would otherwise be judged on misread data.
func WellFormed(events []trace.Event) Result {
	var violations []Violation
	for i := range events {
		e := &events[i]
		if i > 0 {
			prev := &events[i-1]
			if e.Seq != prev.Seq+1 {
				violations = append(violations, violationAt(PropWellFormed, e, "seq %d follows seq %d", e.Seq, prev.Seq))
			}
			if e.T < prev.T {
				violations = append(violations, violationAt(PropWellFormed, e, "time goes back from t=%d to t=%d", prev.T, e.T))
			}
		}
		if fields, ok := required[e.Kind]; ok {
			for _, field := range fields {
				if !hasField(e, field) {
					violations = append(violations, violationAt(PropWellFormed, e, "%s without %s", e.Kind, field))
				}
			}
		}
		if e.Kind == trace.KindSinkWrites {
			violations = append(violations, judgeWriteLists(e)...)
		}
		for _, a := range e.Attrs {
			if !numericAttr(a.Key) {
				continue
			}
			n, err := strconv.ParseInt(a.Value, 10, 64)
			switch {
			case err != nil || n < 0:
				violations = append(violations, violationAt(PropWellFormed, e,
					"attribute %s=%q is not a non-negative integer", a.Key, a.Value))
			case a.Key == trace.AttrStart && n > e.T:
				violations = append(violations, violationAt(PropWellFormed, e,
					"start=%d is later than the event's t=%d", n, e.T))
			}
		}
	}
	return resultInOrder(PropWellFormed, violations)
}

// judgeWriteLists checks that a sink.writes lists one value per record id when it lists values
// at all, since exactly-once pairs them up by position.
func judgeWriteLists(e *trace.Event) []Violation {
	values, ok := e.Attr(trace.AttrValues)
	if !ok {
		return nil
	}
	rids, _ := e.Attr(trace.AttrRIDs)
	nRIDs := strings.Count(rids, trace.ListSeparator) + 1
	nValues := strings.Count(values, trace.ListSeparator) + 1
	if nRIDs != nValues {
		return []Violation{violationAt(PropWellFormed, e, "sink.writes lists %d record ids but %d values", nRIDs, nValues)}
	}
	return nil
}

func hasField(e *trace.Event, field string) bool {
	switch field {
	case "task":
		return e.Task != ""
	case "to":
		return e.To != ""
	case "from":
		return e.From != ""
	case "cp":
		return e.CP != 0
	case "txn":
		return e.Txn != ""
	case "rid":
		return e.RID != ""
	}
	_, ok := e.Attr(field)
	return ok
}

func numericAttr(key string) bool {
	switch key {
	case trace.AttrRecords, trace.AttrStart, trace.AttrTokens:
		return true
	}
	for _, prefix := range []string{trace.AttrSentPrefix, trace.AttrRecvPrefix, trace.AttrChanPrefix, trace.AttrChanTokensPrefix} {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}
