package protocol

import (
	"strconv"
	"time"
)

// CheckpointID names one checkpoint or savepoint of a job. Ids are strictly
// increasing over the whole life of a job, across coordinator incarnations:
// the coordinator reserves every id in durable storage (see
// CoordinatorReady.CounterWrites) before any message carries it, so a new
// incarnation that starts from the stored counter can never reuse one. The
// zero value means "no checkpoint" (a fresh start).
type CheckpointID uint64

// String returns the decimal id, the form traces and golden files use.
func (id CheckpointID) String() string { return strconv.FormatUint(uint64(id), 10) }

// TaskID is the stable name of one parallel task instance, such as "sum-2".
// It stays the same across restarts of the task, so traces of different
// incarnations can be compared.
type TaskID string

// String returns the id unchanged.
func (id TaskID) String() string { return string(id) }

// CoordinatorTask is the name the coordinator uses for itself in traces.
const CoordinatorTask TaskID = "coordinator"

// ChannelID names one data channel between two tasks. Index tells apart
// several channels between the same pair of tasks (0 when there is one).
// Channels are FIFO: the protocol relies on records, barriers, cancel
// markers and end-of-partition events arriving in the order they were sent.
type ChannelID struct {
	From  TaskID
	To    TaskID
	Index int
}

// String renders "from->to", with "#index" appended when Index is not 0.
func (c ChannelID) String() string {
	s := string(c.From) + "->" + string(c.To)
	if c.Index != 0 {
		s += "#" + strconv.Itoa(c.Index)
	}
	return s
}

// Time is a point in virtual time, in nanoseconds since the start of a run
// (or any fixed origin the host chooses). The protocol never reads a clock:
// every input carries the host's current Time, and every deadline the
// protocol wants is reported back as a Time (NextDeadline).
type Time int64

// Add returns t moved forward by d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// String renders the nanosecond count, e.g. "1500000".
func (t Time) String() string { return strconv.FormatInt(int64(t), 10) }

// NoDeadline is returned by NextDeadline methods when nothing is scheduled.
const NoDeadline Time = 1<<63 - 1
