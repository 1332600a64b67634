package checker

import (
	"math"

	"github.com/ckptsim/ckptsim/trace"
)

var faultKinds = kindsOf(trace.KindFault)

// faultSpans are the stretches of virtual time during which injected faults were in force,
// read from the trace's fault events: a windowed fault from its event to the event that ends
// it (same id attribute, attr end=true), or to the end of the trace if none does; any other
// fault at its instant. A fault that delays (delay_ns: restart.delay, net.delay,
// storage.slow) holds up what it delayed in its last instant for that much longer: a host
// restarted just before a restart.delay ended comes up delay_ns after (quiet counts it). The bounded properties that judge timing outside the liveness phase
// (recovery-bound, alignment-timeout, abort-reach) use it to judge only what happened while
// no fault could excuse a delay.
type faultSpans struct {
	spans [][2]int64
	// tails are the delays of the spans, index for index: how long past its end each
	// holds up what it delayed.
	tails []int64
	// toCoordinator: the span's fault may hold up a message to the coordinator (it names
	// no link, or a link into the coordinator).
	toCoordinator []bool
}

func faultSpansOf(ix *traceIndex) *faultSpans {
	f := &faultSpans{}
	open := map[string]int{} // id attribute -> index of its span
	for i := range ix.only(faultKinds) {
		e := &ix.events[i]
		id, _ := e.Attr("id")
		if end, _ := e.Attr("end"); end == "true" {
			if at, ok := open[id]; ok {
				f.spans[at][1] = e.T
				f.tails[at] = delayOf(e)
				delete(open, id)
			}
			continue
		}
		span := [2]int64{e.T, e.T}
		if _, windowed := e.Attr("window_ns"); windowed && id != "" {
			span[1] = math.MaxInt64
			open[id] = len(f.spans)
		}
		f.spans = append(f.spans, span)
		f.tails = append(f.tails, 0)
		f.toCoordinator = append(f.toCoordinator, e.To == "" || e.To == trace.CoordinatorTask)
	}
	return f
}

// delayOf is a fault event's delay_ns, 0 when it has none.
func delayOf(e *trace.Event) int64 {
	d, _ := intAttr(e, "delay_ns")
	return max(0, d)
}

// quiet reports whether no fault was in force after from and up to to, its delay included:
// no span reaches past from and starts by to. A fault that ended at from (a crash at the
// instant of the failover it caused) does not count.
func (f *faultSpans) quiet(from, to int64) bool {
	return f.quietFor(from, to, func(int) bool { return true })
}

// quietAtTheTask is quiet without the delays' tails, for a rule about what a process does
// on its own clock once something reached it (a task's switch to unaligned from its first
// barrier, the coordinator's abort on a decline): a message a delay held up only arrives
// later.
func (f *faultSpans) quietAtTheTask(from, to int64) bool {
	return f.quietFor(from, to, func(int) bool { return false })
}

// quietToTheCoordinator is quiet with only the tails of the delays that may hold up a
// message to the coordinator, for a rule whose bound counts a task's message reaching it:
// the channel holds the message behind those the delay held up.
func (f *faultSpans) quietToTheCoordinator(from, to int64) bool {
	return f.quietFor(from, to, func(i int) bool { return f.toCoordinator[i] })
}

// quietStretch returns the start of the first stretch of length without faults from from on,
// and false if a fault that never ends comes first.
func (f *faultSpans) quietStretch(from, length int64) (int64, bool) {
	for moved := true; moved; {
		moved = false
		for i, s := range f.spans {
			if s[0] > from+length {
				continue
			}
			if s[1] == math.MaxInt64 {
				return 0, false
			}
			if end := s[1] + f.tails[i]; end > from {
				from, moved = end, true
			}
		}
	}
	return from, true
}

// quietFor is quiet counting the tail of span i where tail(i) says so.
func (f *faultSpans) quietFor(from, to int64, tail func(i int) bool) bool {
	for i, s := range f.spans {
		end := s[1]
		if end != math.MaxInt64 && tail(i) {
			end += f.tails[i]
		}
		if end > from && s[0] <= to {
			return false
		}
	}
	return true
}
