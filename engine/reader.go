package engine

import (
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// readerProcess is a client of the external store that polls how many records are visible
// and traces each answer as sink.read, with the time it asked as `start`: the history the
// sink-visibility check runs porcupine over (reads must see only committed output, and
// never less than an earlier read saw).
type readerProcess struct {
	rt    *Runtime
	name  string
	proc  Proc
	timer Timer // re-armed for every poll
}

// ReaderName returns the process name of reader i.
func ReaderName(i int) string { return ReaderPrefix + strconv.Itoa(i) }

func (p *readerProcess) run(first time.Duration) {
	p.timer = p.proc.NewTimer(p.poll)
	p.timer.Reset(first)
}

func (p *readerProcess) poll() {
	p.proc.Send(storeName, &storeRequest{op: opRead, writer: p.name, start: p.rt.env.Now()})
	p.timer.Reset(p.rt.cfg.Store.ReadInterval)
}

func (p *readerProcess) Receive(from string, msg any) {
	m, ok := msg.(*storeReply)
	if !ok || m.op != opRead {
		panic(invariantf("engine: %s: unexpected message %T from %s", p.name, msg, from))
	}
	if !p.proc.Alive() {
		return
	}
	p.rt.emit(trace.Event{Kind: trace.KindSinkRead, Task: p.name, Attrs: []trace.Attr{
		{Key: trace.AttrRecords, Value: strconv.FormatInt(m.visible, 10)},
		{Key: trace.AttrStart, Value: strconv.FormatInt(m.start, 10)},
	}})
}

// Crashed implements Process: a reader on a crashed host simply stops reading.
func (p *readerProcess) Crashed() {}
