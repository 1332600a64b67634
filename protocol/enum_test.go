package protocol_test

import (
	"fmt"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// TestEnumNamesAreStable pins the text of every enum constant: the texts
// reach traces, scripts and golden files, and the String methods are
// generated (internal/enumgen), so a rename of a constant must not change
// them unnoticed.
func TestEnumNamesAreStable(t *testing.T) {
	for _, c := range []struct {
		value fmt.Stringer
		want  string
	}{
		{protocol.KindCheckpoint, "checkpoint"}, {protocol.KindSavepoint, "savepoint"}, {protocol.Kind(9), "kind(9)"},
		{protocol.ModeAligned, "aligned"}, {protocol.ModeUnaligned, "unaligned"},
		{protocol.ModeAlignedWithTimeout, "aligned-with-timeout"}, {protocol.ModeAtLeastOnce, "at-least-once"},
		{protocol.Mode(0), "mode(0)"},
		{protocol.ReasonExpired, "expired"}, {protocol.ReasonUploadFailed, "upload-failed"},
		{protocol.ReasonChannelStateOverflow, "channel-state-overflow"}, {protocol.ReasonTooManyPending, "too-many-pending"},
		{protocol.ReasonNewerBarrier, "newer-barrier"}, {protocol.ReasonCanceled, "canceled"},
		{protocol.ReasonAborted, "aborted"}, {protocol.ReasonPersistFailed, "persist-failed"},
		{protocol.ReasonTriggerFailed, "trigger-failed"}, {protocol.ReasonSubsumed, "subsumed"},
		{protocol.ReasonFailover, "failover"}, {protocol.ReasonTaskFailure, "task-failure"},
		{protocol.ReasonTolerableFailuresExceeded, "tolerable-failures-exceeded"},
		{protocol.ReasonCoordinatorRecovery, "coordinator-recovery"}, {protocol.ReasonTaskFinished, "task-finished"},
		{protocol.ReasonJobFinished, "job-finished"}, {protocol.Reason(200), "reason(200)"},
		{protocol.MsgTrigger, "trigger"}, {protocol.MsgAck, "ack"}, {protocol.MsgDecline, "decline"},
		{protocol.MsgNotifyComplete, "notify-complete"}, {protocol.MsgNotifyAborted, "notify-aborted"},
		{protocol.MsgTaskFinished, "task-finished"}, {protocol.MessageType(0), "message(0)"},
		{protocol.EventBarrier, "barrier"}, {protocol.EventCancelMarker, "cancel-marker"},
		{protocol.EventEndOfPartition, "end-of-partition"}, {protocol.EventEndOfData, "end-of-data"},
		{protocol.EventType(7), "event(7)"},
		{protocol.NotifyComplete, "complete"}, {protocol.NotifyAborted, "aborted"},
		{protocol.NotificationType(0), "notification(0)"},
		{protocol.AdmitProcess, "process"}, {protocol.AdmitBlock, "block"}, {protocol.AdmitRecord, "record"},
		{protocol.AdmitAction(0), "admit(0)"},
		{protocol.TransactionCommit, "commit"}, {protocol.TransactionAbort, "abort"},
		{protocol.TransactionActionType(0), "transaction-action(0)"},
	} {
		if got := c.value.String(); got != c.want {
			t.Errorf("%T %d renders %q, want %q", c.value, c.value, got, c.want)
		}
	}
}
