package live

import (
	"container/heap"
	"time"
)

// timer implements engine.Timer. Its fields, like its queue's, are guarded by the engine
// lock.
type timer struct {
	p  *proc
	fn func()
	// deadline is when it goes off, in Env time (Now + d when armed); seq orders timers of
	// the same deadline by when they were armed; index is its place in the queue, -1 when
	// it is not armed.
	deadline int64
	seq      uint64
	index    int
}

// Reset implements engine.Timer. A dead incarnation's timer is not armed.
func (t *timer) Reset(d time.Duration) {
	q := &t.p.timers
	if t.index >= 0 {
		heap.Remove(q, t.index)
	}
	if !t.p.alive {
		return
	}
	q.seq++
	t.deadline, t.seq = t.p.env.now+max(d.Nanoseconds(), 0), q.seq
	heap.Push(q, t)
	q.wake(t.p)
}

// Stop implements engine.Timer.
func (t *timer) Stop() bool {
	if t.index < 0 {
		return false
	}
	heap.Remove(&t.p.timers, t.index)
	return true
}

// timerQueue holds one incarnation's armed timers in the order they go off: by deadline,
// and timers of one deadline in the order they were armed, as the simulator fires them.
// The engine counts on that order: its external store delays every request by the same
// latency, each on a timer of its own, and requests must still be applied in the order they
// came. time.AfterFunc cannot keep it, since each fires on a goroutine of its own, so the
// queue arms one AfterFunc, for its earliest deadline, which only posts a tick into the
// mailbox; the tick runs, on the process's goroutine, every timer that is due, in order.
type timerQueue struct {
	timers []*timer
	seq    uint64
	// alarm is the AfterFunc for the earliest deadline, alarmAt that deadline; tickPosted
	// says a tick is in the mailbox already, for timers that were due when armed.
	alarm      *time.Timer
	alarmAt    int64
	tickPosted bool
}

func (q *timerQueue) Len() int { return len(q.timers) }

func (q *timerQueue) Less(i, j int) bool {
	a, b := q.timers[i], q.timers[j]
	if a.deadline != b.deadline {
		return a.deadline < b.deadline
	}
	return a.seq < b.seq
}

func (q *timerQueue) Swap(i, j int) {
	q.timers[i], q.timers[j] = q.timers[j], q.timers[i]
	q.timers[i].index, q.timers[j].index = i, j
}

func (q *timerQueue) Push(x any) {
	t := x.(*timer)
	t.index = len(q.timers)
	q.timers = append(q.timers, t)
}

func (q *timerQueue) Pop() any {
	n := len(q.timers) - 1
	t := q.timers[n]
	q.timers[n] = nil
	q.timers = q.timers[:n]
	t.index = -1
	return t
}

// wake makes sure a tick comes for the earliest deadline: at once if it is due, else from
// the alarm, armed for it unless an alarm for as early already is.
func (q *timerQueue) wake(p *proc) {
	if len(q.timers) == 0 || q.tickPosted {
		return
	}
	at := q.timers[0].deadline
	wait := time.Duration(at - time.Since(p.env.start).Nanoseconds())
	if wait <= 0 {
		q.tickPosted = true
		p.box.put(item{tick: true})
		return
	}
	if q.alarm != nil {
		if q.alarmAt <= at {
			return // it goes off first, and its tick wakes the queue again
		}
		q.alarm.Stop()
	}
	q.alarmAt = at
	box := &p.box
	q.alarm = time.AfterFunc(wait, func() { box.put(item{tick: true}) })
}

// fire runs, in order, the timers due now that were armed before it began; a timer armed
// by one of them waits for the next tick, so that a process that keeps re-arming a timer
// for now cannot keep its goroutine to itself. A tick from an alarm that was replaced finds
// nothing more due, which costs nothing but the tick.
func (q *timerQueue) fire(p *proc) {
	q.alarm, q.tickPosted = nil, false
	now, last := p.env.now, q.seq
	for p.alive && len(q.timers) > 0 {
		t := q.timers[0]
		if t.deadline > now || t.seq > last {
			break
		}
		heap.Pop(q)
		p.env.call(p.name, t.fn)
	}
	if p.alive {
		q.wake(p)
	}
}
