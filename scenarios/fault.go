package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// Fault is one scheduled fault: what breaks, where, when and for how long. The fields a kind
// uses are listed in faultKinds; the others stay empty.
type Fault struct {
	Kind    string  `json:"kind"`
	Trigger Trigger `json:"trigger,omitzero"`
	// Target is the task ("sum-2"), host ("host-1") or, for timer skew and pauses, either.
	Target string `json:"target,omitempty"`
	// From and To name the link (sending and receiving task) of a network fault; empty
	// means any link.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Store is the durable store a storage fault hits: state, metadata or sink.
	Store string `json:"store,omitempty"`
	// Message is the control message a drop-control fault drops: trigger, ack or notify.
	Message string `json:"message,omitempty"`
	// Duration is how long a pause, partition, clog, delay, reorder or outage lasts.
	Duration Duration `json:"duration,omitzero"`
	// Delay is the latency a delay or slow-write fault adds.
	Delay Duration `json:"delay,omitzero"`
	// RestartAfter is how long a crashed part stays down; zero means until the heal phase.
	RestartAfter Duration `json:"restart_after,omitzero"`
	// Count is how many messages or writes the fault hits; zero means one.
	Count int `json:"count,omitempty"`
	// OneWay makes a partition cut only From -> To.
	OneWay bool `json:"one_way,omitempty"`
	// SkewPPM is a timer-skew fault's clock rate error, in parts per million.
	SkewPPM int64 `json:"skew_ppm,omitempty"`
}

// Trigger says when a fault fires: at a virtual time, or when the trace shows a matching
// event (optionally After a delay).
type Trigger struct {
	At    Duration    `json:"at,omitzero"`
	On    *EventMatch `json:"on,omitempty"`
	After Duration    `json:"after,omitzero"`
}

// EventMatch matches trace events: the Nth event (from 1) of Kind, restricted to a task and a
// checkpoint when those are given.
type EventMatch struct {
	Kind string `json:"kind"`
	Task string `json:"task,omitempty"`
	CP   uint64 `json:"cp,omitempty"`
	Nth  int    `json:"nth,omitempty"`
}

// Fault kinds (DESIGN.md section 4).
const (
	FaultCrashTask          = "crash-task"
	FaultCrashHost          = "crash-host"
	FaultCrashCoordinator   = "crash-coordinator"
	FaultPause              = "pause"
	FaultDropBarrier        = "drop-barrier"
	FaultDropControl        = "drop-control"
	FaultBreakChannel       = "break-channel"
	FaultDelay              = "delay"
	FaultPartition          = "partition"
	FaultClog               = "clog"
	FaultReorder            = "reorder"
	FaultDropRecord         = "drop-record"
	FaultDuplicateRecord    = "duplicate-record"
	FaultStorageWriteFail   = "storage-write-fail"
	FaultStorageSlow        = "storage-slow"
	FaultStorageCorrupt     = "storage-corrupt"
	FaultStorageUnavailable = "storage-unavailable"
	FaultStorageLostAck     = "storage-lost-after-ack"
	FaultCommitFail         = "commit-fail"
	FaultTimerSkew          = "timer-skew"
)

// Fault field names, as faultKind lists them.
const (
	fieldTarget       = "target"
	fieldLink         = "link" // from and to, both optional
	fieldStore        = "store"
	fieldMessage      = "message"
	fieldDuration     = "duration"
	fieldDelay        = "delay"
	fieldRestartAfter = "restart_after"
	fieldCount        = "count"
	fieldOneWay       = "one_way"
	fieldSkew         = "skew_ppm"
)

// faultKind says which fields a kind requires and allows, and whether the kind breaks the
// protocol's own assumptions (out of model: the checkers are expected to catch it).
type faultKind struct {
	name       string
	requires   []string
	allows     []string
	outOfModel bool
}

var faultKinds = []faultKind{
	{name: FaultCrashTask, requires: []string{fieldTarget}, allows: []string{fieldRestartAfter}},
	{name: FaultCrashHost, requires: []string{fieldTarget}, allows: []string{fieldRestartAfter}},
	{name: FaultCrashCoordinator, allows: []string{fieldRestartAfter}},
	{name: FaultPause, requires: []string{fieldTarget, fieldDuration}},
	{name: FaultDropBarrier, allows: []string{fieldLink, fieldCount}},
	{name: FaultDropControl, requires: []string{fieldMessage}, allows: []string{fieldTarget, fieldCount}},
	{name: FaultBreakChannel, allows: []string{fieldLink}},
	{name: FaultDelay, requires: []string{fieldDelay, fieldDuration}, allows: []string{fieldLink}},
	{name: FaultPartition, requires: []string{fieldDuration}, allows: []string{fieldLink, fieldOneWay}},
	{name: FaultClog, requires: []string{fieldDuration}, allows: []string{fieldLink}},
	{name: FaultReorder, requires: []string{fieldDuration}, allows: []string{fieldLink}, outOfModel: true},
	{name: FaultDropRecord, allows: []string{fieldLink, fieldCount}, outOfModel: true},
	{name: FaultDuplicateRecord, allows: []string{fieldLink, fieldCount}, outOfModel: true},
	{name: FaultStorageWriteFail, requires: []string{fieldStore}, allows: []string{fieldCount}},
	{name: FaultStorageSlow, requires: []string{fieldStore, fieldDelay, fieldDuration}},
	{name: FaultStorageCorrupt, requires: []string{fieldStore}, allows: []string{fieldCount}},
	{name: FaultStorageUnavailable, requires: []string{fieldStore, fieldDuration}},
	{name: FaultStorageLostAck, requires: []string{fieldStore}, allows: []string{fieldCount}, outOfModel: true},
	{name: FaultCommitFail, allows: []string{fieldCount}},
	{name: FaultTimerSkew, requires: []string{fieldTarget, fieldSkew}},
}

// Stores a storage fault may hit.
var Stores = []string{"state", "metadata", "sink"}

// ControlMessages a drop-control fault may drop.
var ControlMessages = []string{"trigger", "ack", "notify"}

// FaultKinds lists every fault kind.
func FaultKinds() []string {
	names := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		names[i] = k.name
	}
	return names
}

// InModelFaultKinds lists the kinds the protocol must survive; a swarm with no kinds draws
// from these.
func InModelFaultKinds() []string {
	var names []string
	for _, k := range faultKinds {
		if !k.outOfModel {
			names = append(names, k.name)
		}
	}
	return names
}

// IsOutOfModel reports whether kind breaks the protocol's own assumptions.
func IsOutOfModel(kind string) bool {
	k, ok := lookupFaultKind(kind)
	return ok && k.outOfModel
}

func lookupFaultKind(name string) (faultKind, bool) {
	for _, k := range faultKinds {
		if k.name == name {
			return k, true
		}
	}
	return faultKind{}, false
}

// String returns the fault's one-line text form, stable across runs so that it can appear in
// golden output and artifacts: kind, where, parameters, then when.
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(f.Kind)
	if f.Target != "" {
		b.WriteString(" " + f.Target)
	}
	if f.From != "" || f.To != "" {
		arrow := "->"
		if f.Kind == FaultPartition && !f.OneWay {
			arrow = "<->"
		}
		b.WriteString(" " + orAny(f.From) + arrow + orAny(f.To))
	}
	if f.Store != "" {
		b.WriteString(" store=" + f.Store)
	}
	if f.Message != "" {
		b.WriteString(" message=" + f.Message)
	}
	if f.Delay != 0 {
		b.WriteString(" delay=" + f.Delay.String())
	}
	if f.Duration != 0 {
		b.WriteString(" for=" + f.Duration.String())
	}
	if f.RestartAfter != 0 {
		b.WriteString(" restart-after=" + f.RestartAfter.String())
	}
	if f.Count > 1 {
		b.WriteString(" count=" + strconv.Itoa(f.Count))
	}
	if f.SkewPPM != 0 {
		b.WriteString(" skew=" + strconv.FormatInt(f.SkewPPM, 10) + "ppm")
	}
	b.WriteString(" " + f.Trigger.String())
	return b.String()
}

func orAny(task string) string {
	if task == "" {
		return "*"
	}
	return task
}

// String returns "at 1.5s" or "on 3rd snapshot.ack task=sum-2 cp=4 +10ms".
func (t Trigger) String() string {
	if t.On == nil {
		return "at " + t.At.String()
	}
	s := "on " + ordinal(max(t.On.Nth, 1)) + " " + t.On.Kind
	if t.On.Task != "" {
		s += " task=" + t.On.Task
	}
	if t.On.CP != 0 {
		s += fmt.Sprintf(" cp=%d", t.On.CP)
	}
	if t.After != 0 {
		s += " +" + t.After.String()
	}
	return s
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func cloneFaults(faults []Fault) []Fault {
	if len(faults) == 0 {
		return nil
	}
	c := make([]Fault, len(faults))
	for i, f := range faults {
		c[i] = f
		c[i].Trigger.On = clonePointer(f.Trigger.On)
	}
	return c
}
