package sim

import (
	"fmt"
	"strconv"

	"github.com/ckptsim/ckptsim/trace"
)

// TraceKindPrefix starts the kind of every kernel event written to a trace ("sim.msg.drop").
// Kernel events are additions to the trace schema: checkers of schema v1 ignore them, and
// they let a reader of a trace see the network and storage behaviour behind a failure.
const TraceKindPrefix = "sim."

// TraceEvent renders the kernel event as a trace event, for a harness that wants kernel
// events in its trace (emit it with Recorder.Emit(int64(e.At), e.TraceEvent())). Host events
// name the host as the task; message events name the link's ends in from and to; the rest
// goes into attributes. Messages are written with %v, so their String method decides.
func (e Event) TraceEvent() trace.Event {
	t := trace.Event{Kind: TraceKindPrefix + e.Kind.String()}
	if e.Host != nil {
		t.Task = e.Host.name
	}
	if e.Link != nil {
		t.From, t.To = e.Link.from.name, e.Link.to.name
	}
	if e.Reason != 0 {
		t.Reason = e.Reason.String()
	}
	if e.Fault.Kind != StoreFaultNone {
		t.Fault = e.Fault.Kind.String()
	}
	// Attributes in key order, so the recorder need not sort a copy.
	add := func(key, value string) { t.Attrs = append(t.Attrs, trace.Attr{Key: key, Value: value}) }
	if e.Err != nil {
		add("err", e.Err.Error())
	}
	if e.Kind == EventHostStart || e.Kind == EventHostCrash {
		add("incarnation", strconv.FormatUint(e.Incarnation, 10))
	}
	if e.Store != nil {
		add("key", e.Key)
	}
	if e.Link != nil {
		add("link", e.Link.name)
	}
	if e.Message != nil {
		add("msg", fmt.Sprint(e.Message))
	}
	if e.Store != nil {
		add("op", e.Op.String())
		add("store", e.Store.name)
	}
	if e.Kind == EventHostPause {
		add("until", strconv.FormatInt(int64(e.Until), 10))
	}
	return t
}
