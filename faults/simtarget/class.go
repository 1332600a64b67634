package simtarget

import (
	"fmt"

	"github.com/ckptsim/ckptsim/faults"
)

// Class is what a message on a link is, as far as fault injection cares. The kernel carries
// opaque payloads, so the glue, which knows the engine's message types, supplies a Classifier.
type Class uint8

const (
	// ClassOther is everything no fault singles out (credits, cancel markers, end of
	// partition, requests to the external store...). Link-wide faults (partition, clog,
	// delay, break, reorder) still hit it; class-specific ones never do.
	ClassOther Class = iota
	// ClassRecord is a data record, or a buffer of them: what data.drop and data.duplicate
	// lose or repeat.
	ClassRecord
	// ClassBarrier is a checkpoint barrier on a data channel.
	ClassBarrier
	// ClassTrigger is a coordinator -> source "start checkpoint n".
	ClassTrigger
	// ClassAck is a task -> coordinator acknowledgement (or decline) of a snapshot.
	ClassAck
	// ClassNotify is a coordinator -> task completion or abort notification.
	ClassNotify
)

var classNames = [...]string{
	ClassOther:   "other",
	ClassRecord:  "record",
	ClassBarrier: "barrier",
	ClassTrigger: "trigger",
	ClassAck:     "ack",
	ClassNotify:  "notify",
}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// Classifier tells what a payload is. It is called for every message sent on a link while a
// class-specific fault (net.drop, data.drop, data.duplicate) is active on it, so it should be
// a cheap type switch; it must not draw randomness or have effects.
type Classifier func(msg any) Class

// MessageClass returns the class of a net.drop message kind. An unknown kind panics: the
// schedule was validated, so it is a bug.
func MessageClass(m faults.Message) Class {
	switch m {
	case faults.MessageBarrier:
		return ClassBarrier
	case faults.MessageTrigger:
		return ClassTrigger
	case faults.MessageAck:
		return ClassAck
	case faults.MessageNotify:
		return ClassNotify
	}
	panic(fmt.Sprintf("simtarget: unknown message class %q", m))
}
