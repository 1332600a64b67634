package checker

import (
	"fmt"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// Property names one checked property. The names appear in reports, in simrun's JSON output
// and in artifacts, so they never change.
type Property string

// The properties ckptsim checks, plus well-formedness of the trace itself.
const (
	PropWellFormed Property = "well-formed"
	// PropContract: the engine traced no broken contract with the protocol.
	PropContract         Property = "contract"
	PropExactlyOnce      Property = "exactly-once"
	PropAtLeastOnce      Property = "at-least-once"
	PropConsistentCut    Property = "consistent-cut"
	PropRestoreFidelity  Property = "restore-fidelity"
	PropListenerContract Property = "listener-contract"
	PropDurableVisible   Property = "durable-before-visible"
	PropSinkVisibility   Property = "sink-visibility"
	PropLiveness         Property = "liveness"
	PropDeterminism      Property = "determinism"
	// PropCheckpointOutcome: every checkpoint asked for completes or aborts with a reason.
	PropCheckpointOutcome Property = "checkpoint-outcome"
	// PropFailureAccounting: the job fails over exactly when its checkpoint failures in a
	// row exceed the tolerable limit.
	PropFailureAccounting Property = "failure-accounting"
	// PropNoTriggerInFailover: no checkpoint is triggered between a failover and the restart.
	PropNoTriggerInFailover Property = "no-trigger-in-failover"
	// PropNoPendingAcrossFailover: no checkpoint is still pending when the job fails over.
	PropNoPendingAcrossFailover Property = "no-pending-across-failover"
	// PropNoTriggerAfterFinish: no checkpoint is triggered once the job has finished.
	PropNoTriggerAfterFinish Property = "no-trigger-after-finish"
	// PropTriggerPacing: periodic triggers keep the interval and the minimum pause, and no
	// trigger exceeds the checkpoints that may be pending at once.
	PropTriggerPacing Property = "trigger-pacing"
	// PropCheckpointTiming: a checkpoint expires at its timeout, neither before nor long
	// after, and one a task declined ends at once.
	PropCheckpointTiming Property = "checkpoint-timing"
	// PropRecoveryBound: after every failover a checkpoint completes within a bound.
	PropRecoveryBound Property = "recovery-bound"
	// PropAlignmentTimeout: a task aligning with a timeout switches to unaligned in time.
	PropAlignmentTimeout Property = "alignment-timeout"
	// PropAbortReach: an aborted checkpoint's tasks are told within a bound.
	PropAbortReach Property = "abort-reach"
	// PropBarrierHandling: a task answers a trigger at once, its channels' ids never go
	// back, and it passes cancel markers on as the specification's task rules say.
	PropBarrierHandling Property = "barrier-handling"
	// PropFailureCause: a task fails by itself only after something that can make it fail.
	PropFailureCause Property = "failure-cause"
	// PropFailoverCause: the job fails over only for a cause, and a snapshot that cannot be
	// uploaded declines its checkpoint instead of failing its task.
	PropFailoverCause Property = "failover-cause"
	// PropStateRelease: uploaded state is released exactly when nothing retained holds it.
	PropStateRelease Property = "state-release"
	// PropExpectedSnapshot: each global snapshot the reference expects completes with the
	// expected tokens and recorded messages.
	PropExpectedSnapshot Property = "expected-snapshot"
)

// AllProperties lists every property in the order Check runs and reports them.
var AllProperties = []Property{
	PropWellFormed,
	PropContract,
	PropExactlyOnce,
	PropAtLeastOnce,
	PropConsistentCut,
	PropExpectedSnapshot,
	PropRestoreFidelity,
	PropListenerContract,
	PropCheckpointOutcome,
	PropFailureAccounting,
	PropNoTriggerInFailover,
	PropNoPendingAcrossFailover,
	PropNoTriggerAfterFinish,
	PropTriggerPacing,
	PropCheckpointTiming,
	PropRecoveryBound,
	PropAlignmentTimeout,
	PropAbortReach,
	PropBarrierHandling,
	PropFailureCause,
	PropFailoverCause,
	PropStateRelease,
	PropDurableVisible,
	PropSinkVisibility,
	PropLiveness,
	PropDeterminism,
}

// Violation is one broken property, pinned to the first event that shows it. Where a property
// fails through an absence (a record never committed, a checkpoint that never completed), the
// event is the one at which the absence became final: the first event past a deadline, or the
// last event of the trace. Task and CP may name the task and checkpoint at fault rather than
// the event's own (a task that was never notified is named on the completion it missed).
//
// Its JSON form (simrun's -json output, artifacts) has the fields property, message, seq, t,
// task and cp, always all six, and rule when set; its String form is the one text form
// everywhere else.
type Violation struct {
	Property Property `json:"property"`
	Message  string   `json:"message"` // one line, for a person
	Seq      uint64   `json:"seq"`     // the offending event
	T        int64    `json:"t"`       // its virtual time, in nanoseconds
	Task     string   `json:"task"`
	CP       uint64   `json:"cp"`
	// Rule names the rule of the specification (Rules) that the violation breaks, where
	// its property judges several; empty where the property is its one rule.
	Rule string `json:"rule,omitempty"`
	// From and To name the channel, sender to receiver, of a violation about one (a cut
	// that does not balance on it): a picture can then show the channel's counts.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// String returns the violation as one stable line:
// "property seq=S t=T task=X cp=N: message" (task and cp left out when empty).
func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s seq=%d t=%d", v.Property, v.Seq, v.T)
	if v.Task != "" {
		fmt.Fprintf(&b, " task=%s", v.Task)
	}
	if v.CP != 0 {
		fmt.Fprintf(&b, " cp=%d", v.CP)
	}
	b.WriteString(": ")
	b.WriteString(v.Message)
	return b.String()
}

// violationAt pins a violation to e, naming e's task and checkpoint.
func violationAt(p Property, e *trace.Event, format string, args ...any) Violation {
	return Violation{
		Property: p,
		Message:  oneLine(fmt.Sprintf(format, args...)),
		Seq:      e.Seq,
		T:        e.T,
		Task:     e.Task,
		CP:       e.CP,
	}
}

// oneLine keeps a message on one line whatever the trace's strings hold.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}
