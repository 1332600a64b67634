package checker

import (
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleChannelStateBounded names the rule that a task records a bounded channel state.
const ruleChannelStateBounded = "channel-state.bounded"

// channelStateOver judges channel-state.bounded on one snapshot.taken: the records it stored
// as channel state (its chan.<from> counts) are at most bound, the reference's
// ChannelStateMaxRecords (zero: not judged). A task that would record more declines the
// checkpoint instead (channel-state-overflow) rather than grow without limit.
func channelStateOver(e *trace.Event, bound int64) (Violation, bool) {
	if bound == 0 {
		return Violation{}, false
	}
	var recorded int64
	for _, a := range e.Attrs {
		if strings.HasPrefix(a.Key, trace.AttrChanPrefix) {
			n, _ := strconv.ParseInt(a.Value, 10, 64)
			recorded += n
		}
	}
	if recorded <= bound {
		return Violation{}, false
	}
	v := violationAt(PropConsistentCut, e, "%s recorded %d records as channel state for checkpoint %d, more than the %d the configuration bounds it to (it should have declined the checkpoint)",
		e.Task, recorded, e.CP, bound)
	v.Rule = ruleChannelStateBounded
	return v, true
}
