package trace

import "strings"

// Fields says which fields and attributes an event of one kind carries in schema v1: the
// contract that the checkers' well-formedness property enforces on any engine's trace. A
// field or attribute not listed is not part of the schema for that kind, and a trace that
// carries one was written against another schema (or has a misspelling): a checker that
// silently ignored it would judge the run on less than its emitter meant to say.
type Fields struct {
	// Required and Optional name the fixed fields beyond seq, t and kind ("task", "from",
	// "to", "cp", "reason", "txn", "rid", "fault"). A required cp must be non-zero.
	Required, Optional []string
	// Attrs are the attribute keys the kind may carry, and RequiredAttrs those it must.
	Attrs, RequiredAttrs []string
	// AttrPrefixes are key prefixes (such as "sent.") under which any key is allowed.
	AttrPrefixes []string
	// AnyAttrs allows every attribute key: a fault event carries its fault's own
	// parameters, which are the fault package's to define.
	AnyAttrs bool
}

// Allows reports whether an event of this kind may carry attribute key.
func (f *Fields) Allows(key string) bool {
	if f.AnyAttrs {
		return true
	}
	for _, k := range f.Attrs {
		if k == key {
			return true
		}
	}
	for _, k := range f.RequiredAttrs {
		if k == key {
			return true
		}
	}
	for _, prefix := range f.AttrPrefixes {
		if strings.HasPrefix(key, prefix) && len(key) > len(prefix) {
			return true
		}
	}
	return false
}

// AllowsField reports whether an event of this kind may carry fixed field name.
func (f *Fields) AllowsField(name string) bool {
	for _, list := range [][]string{f.Required, f.Optional} {
		for _, n := range list {
			if n == name {
				return true
			}
		}
	}
	return false
}

// FieldsOf returns the fields of kind, and false for a kind the schema does not define.
func FieldsOf(kind string) (*Fields, bool) {
	f, ok := fieldsByKind[kind]
	return f, ok
}

// coordinatorTask: coordinator events name the coordinator as their task, which an engine
// may leave out.
var coordinatorTask = []string{"task"}

var snapshotPrefixes = []string{AttrSentPrefix, AttrRecvPrefix, AttrChanPrefix, AttrOutPrefix, AttrChanTokensPrefix, AttrChanMsgsPrefix, AttrChanMorePrefix, AttrUnionPrefix}

// fieldsByKind holds the Fields of every kind; schema_test.go checks it covers kinds.
var fieldsByKind = map[string]*Fields{
	KindCheckpointRequest:  {Required: []string{"cp"}, Optional: coordinatorTask},
	KindCheckpointTrigger:  {Required: []string{"cp"}, Optional: coordinatorTask, Attrs: []string{AttrSavepoint, AttrStop, AttrDrain, AttrPeriodic, AttrStart, AttrUnassigned}},
	KindCheckpointPersist:  {Required: []string{"cp"}, Optional: coordinatorTask},
	KindCheckpointComplete: {Required: []string{"cp"}, Optional: coordinatorTask},
	KindCheckpointAbort:    {Required: []string{"cp"}, Optional: []string{"task", "reason"}},
	KindCoordinatorCrash:   {Optional: []string{"task", "reason"}},
	KindCoordinatorRecover: {Optional: []string{"task", "cp"}},
	KindJobFailover:        {Optional: []string{"task", "cp", "reason"}},
	KindJobFinish:          {Optional: coordinatorTask, Attrs: []string{AttrStop}},
	KindJobResubmit:        {Required: []string{"cp"}, Optional: coordinatorTask, RequiredAttrs: []string{AttrMode}, Attrs: []string{AttrRescale, AttrParallelism, AttrTasks}},

	KindBarrierSend:     {Required: []string{"task", "to", "cp"}},
	KindBarrierRecv:     {Required: []string{"task", "from", "cp"}},
	KindSnapshotTaken:   {Required: []string{"task", "cp"}, Attrs: []string{AttrState, AttrTokens, AttrPieces, AttrStop, AttrSplits, AttrKeyGroups}, AttrPrefixes: snapshotPrefixes},
	KindSnapshotCarried: {Required: []string{"task", "cp"}, RequiredAttrs: []string{AttrTaken}, Attrs: []string{AttrStop, AttrSplits}},
	KindSnapshotAck:     {Required: []string{"task", "cp"}, Attrs: []string{AttrFinal}},
	KindSnapshotDecline: {Required: []string{"task", "cp"}, Optional: []string{"reason"}},
	KindStateRelease:    {Required: []string{"task", "cp"}},
	KindPieceRelease:    {Required: []string{"task", "cp"}, RequiredAttrs: []string{AttrPiece}},
	KindStateLive:       {RequiredAttrs: []string{AttrPieces, AttrBytes}},

	KindSplitAssign: {Required: []string{"to"}, Optional: coordinatorTask, RequiredAttrs: []string{AttrSplit}},
	KindSplitAdd:    {Required: []string{"task"}, RequiredAttrs: []string{AttrSplit}},

	KindTriggerRecv: {Required: []string{"task", "cp"}},
	KindMarkerSend:  {Required: []string{"task", "to", "cp"}},
	KindMarkerRecv:  {Required: []string{"task", "from", "cp"}},

	KindNotifyComplete: {Required: []string{"task", "cp"}},
	KindNotifyAbort:    {Required: []string{"task", "cp"}},

	KindTaskCrash:   {Required: []string{"task"}, Optional: []string{"reason"}},
	KindTaskRestore: {Required: []string{"task"}, Optional: []string{"cp"}, Attrs: []string{AttrState, AttrKeyGroups, AttrRescaledFrom, AttrReplayed}, AttrPrefixes: []string{AttrUnionPrefix}},
	KindTaskFinish:  {Required: []string{"task"}, Attrs: []string{AttrStop}},

	KindSinkWrite:     {Required: []string{"task", "txn", "rid"}, Attrs: []string{AttrValue}},
	KindSinkWrites:    {Required: []string{"task", "txn"}, RequiredAttrs: []string{AttrRIDs}, Attrs: []string{AttrValues}},
	KindSinkPrecommit: {Required: []string{"task", "txn"}, Optional: []string{"cp"}},
	KindSinkCommit:    {Required: []string{"task", "txn"}, Optional: []string{"cp"}, Attrs: []string{AttrRecords, AttrStart}},
	KindSinkAbort:     {Required: []string{"task", "txn"}, Optional: []string{"reason"}},
	KindSinkRead:      {Required: []string{"task"}, RequiredAttrs: []string{AttrRecords}, Attrs: []string{AttrStart}},
	KindSinkUpsert:    {Required: []string{"task", "rid"}, Attrs: []string{AttrValue, AttrStart}},

	KindRecordSend: {Required: []string{"task", "to", "rid"}},
	KindRecordRecv: {Required: []string{"task", "from", "rid"}},

	KindContractBroken: {Required: []string{"task"}, Optional: []string{"cp"}, RequiredAttrs: []string{AttrWhat}, Attrs: []string{AttrDetail}},

	KindFault: {Required: []string{"fault"}, Optional: []string{"task", "from", "to", "cp", "reason", "txn", "rid"}, AnyAttrs: true},
	KindPhase: {RequiredAttrs: []string{AttrPhase}},
}
