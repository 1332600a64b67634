package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// EventKind names what an observed kernel event is about.
type EventKind uint8

const (
	EventHostStart  EventKind = iota + 1 // Host started (Incarnation says which)
	EventHostCrash                       // Host crashed
	EventHostPause                       // Host paused until Until
	EventSend                            // Message accepted by Link.Send
	EventDeliver                         // Message handed to the receiver
	EventDrop                            // Message lost, for Reason
	EventDuplicate                       // Message duplicated by the duplicate filter
	EventLinkBreak                       // Link broken
	EventLinkRepair                      // Link repaired
	EventStoreApply                      // Store operation Op on Key took effect (or failed: Err)
)

var eventKindNames = [...]string{
	EventHostStart:  "host.start",
	EventHostCrash:  "host.crash",
	EventHostPause:  "host.pause",
	EventSend:       "msg.send",
	EventDeliver:    "msg.deliver",
	EventDrop:       "msg.drop",
	EventDuplicate:  "msg.duplicate",
	EventLinkBreak:  "link.break",
	EventLinkRepair: "link.repair",
	EventStoreApply: "store.apply",
}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && eventKindNames[k] != "" {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// DropReason says why a message was lost.
type DropReason uint8

const (
	DropReceiverDown    DropReason = iota + 1 // the receiver was down when it was sent
	DropReceiverCrashed                       // the receiver crashed while it was in flight
	DropPartitioned                           // the link was cut when it was sent or came due
	DropFiltered                              // the drop filter matched it
	DropBroken                                // the link broke while it was in flight
	DropNoReceiver                            // the receiver had no receive handler set
)

var dropReasonNames = [...]string{
	DropReceiverDown:    "receiver-down",
	DropReceiverCrashed: "receiver-crashed",
	DropPartitioned:     "partitioned",
	DropFiltered:        "filtered",
	DropBroken:          "broken",
	DropNoReceiver:      "no-receiver",
}

func (r DropReason) String() string {
	if int(r) < len(dropReasonNames) && dropReasonNames[r] != "" {
		return dropReasonNames[r]
	}
	return fmt.Sprintf("DropReason(%d)", uint8(r))
}

// Event is what the observer (Kernel.SetObserver) sees. Only the fields that matter for the
// Kind are set. It is passed by value and built only when an observer is installed, so
// observation costs nothing when unused. Pointers in it (Host, Link, Store) are the live
// objects: read them during the call, do not keep the Event's Message past it if the
// payload is reused by its sender.
type Event struct {
	Kind        EventKind
	At          Time
	Host        *Host       // host events; the issuing host of a store operation
	Incarnation uint64      // EventHostStart, EventHostCrash: the incarnation concerned
	Until       Time        // EventHostPause
	Link        *Link       // message and link events
	Message     any         // message events
	Reason      DropReason  // EventDrop
	Store       *Store      // EventStoreApply
	Op          StoreOpKind // EventStoreApply
	Key         string      // EventStoreApply (the prefix, for a list)
	Fault       StoreFault  // EventStoreApply: the fault injected into the operation, if any
	Err         error       // EventStoreApply: nil on success
}

// String renders the event as one stable line (without the time), for logs and golden
// files. Messages are printed with %v.
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case EventHostStart, EventHostCrash:
		fmt.Fprintf(&b, " host=%s inc=%d", e.Host.name, e.Incarnation)
	case EventHostPause:
		fmt.Fprintf(&b, " host=%s until=%s", e.Host.name, e.Until)
	case EventSend, EventDeliver, EventDuplicate:
		fmt.Fprintf(&b, " link=%s msg=%v", e.Link.name, e.Message)
	case EventDrop:
		fmt.Fprintf(&b, " link=%s msg=%v reason=%s", e.Link.name, e.Message, e.Reason)
	case EventLinkBreak, EventLinkRepair:
		fmt.Fprintf(&b, " link=%s", e.Link.name)
	case EventStoreApply:
		fmt.Fprintf(&b, " store=%s op=%s key=%s host=%s", e.Store.name, e.Op, strconv.Quote(e.Key), e.Host.name)
		if e.Fault.Kind != StoreFaultNone {
			fmt.Fprintf(&b, " fault=%s", e.Fault.Kind)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, " err=%q", e.Err.Error())
		}
	}
	return b.String()
}
