package engine

import "github.com/ckptsim/ckptsim/protocol"

// A failed counter write counts as a checkpoint failure (trigger-failed) the moment the
// protocol hears of it, but its abort waits in the trace for a counter write that covers
// the id (traceAbort). The checkers count failures in trace order, so whatever the protocol
// did after counting it and that bears on the count must wait as well: a completion (which
// starts the count again) and a failover (which the count may have asked for, and which
// starts it again too). Traced first, a failover would read as one without cause, or a
// completion would make the late abort count towards the next run of failures. So the
// outcomes of metadata writes and a failover plan are held while such an abort waits, and
// the covering write goes out at once; the protocol, still waiting for the outcome (or
// failing over), triggers nothing meanwhile.

// metadataOutcome is how a write of a completed checkpoint's metadata ended.
type metadataOutcome struct {
	id  protocol.CheckpointID
	err error
}

// holdsForCountedAbort reports whether a counted abort waits for the counter, or an outcome
// held for one still waits for its turn.
func (c *coordinator) holdsForCountedAbort() bool {
	return c.countedAbortDeferred() || len(c.heldMetadata) > 0
}

// confirmMetadata tells the protocol how the metadata write of id ended, or holds the
// answer (see holdsForCountedAbort).
func (c *coordinator) confirmMetadata(id protocol.CheckpointID, err error) {
	if c.holdsForCountedAbort() {
		c.heldMetadata = append(c.heldMetadata, metadataOutcome{id: id, err: err})
		c.coverNow()
		return
	}
	c.proto.MetadataPersisted(c.now(), id, err)
	c.handleReady()
}

// failoverAfterItsCauses carries out a failover plan, or holds it (see
// holdsForCountedAbort).
func (c *coordinator) failoverAfterItsCauses(plan protocol.FailoverPlan) {
	if c.holdsForCountedAbort() {
		c.heldFailover = &plan
		c.coverNow()
		return
	}
	c.failover(plan)
}

// releaseHeld hands the protocol the held outcomes, in order, and then carries out a held
// failover, once no counted abort waits for the counter any more.
func (c *coordinator) releaseHeld() {
	if c.countedAbortDeferred() || c.dead {
		return
	}
	for len(c.heldMetadata) > 0 && !c.dead {
		o := c.heldMetadata[0]
		c.heldMetadata = c.heldMetadata[1:]
		c.proto.MetadataPersisted(c.now(), o.id, o.err)
		c.handleReady()
	}
	if plan := c.heldFailover; plan != nil && !c.dead {
		c.heldFailover = nil
		c.failover(*plan)
	}
}

// coverNow writes the counter at once, instead of when a retry is due, when something waits
// for the write that covers a held-back abort.
func (c *coordinator) coverNow() {
	k := &c.counter
	if k.retryArmed {
		k.retryArmed = false
		k.retry.Stop()
	}
	c.writeCounter()
}

// countedAbortDeferred reports whether an abort held back for the counter counted as a
// checkpoint failure.
func (c *coordinator) countedAbortDeferred() bool {
	for _, a := range c.deferredAborts {
		if a.Kind == protocol.KindCheckpoint && a.Reason.CountsAsFailure() {
			return true
		}
	}
	return false
}
