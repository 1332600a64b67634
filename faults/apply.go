package faults

import (
	"cmp"
	"strings"
)

// apply starts fault f on t under id. It is the only place that maps kinds to Target methods;
// a kind without a case here is a bug, caught by the test that injects every kind.
func apply(t Target, id EffectID, f Fault) {
	if f.Kind.Action() {
		applyAction(t, f)
		return
	}
	l := Link{From: f.From, To: f.To}
	switch f.Kind {
	case CrashTask:
		t.CrashTask(f.Task)
	case CrashHost:
		t.CrashHost(id, f.Host)
	case CrashCoordinator:
		t.CrashCoordinator()
	case PauseHost:
		t.PauseHost(id, f.Host)
	case RestartDelay:
		t.DelayRestarts(id, f.Delay.Nanos())

	case NetDrop:
		t.DropMessages(id, l, f.Message, f.Probability)
	case NetBreak:
		t.BreakChannel(l)
	case NetDelay:
		t.DelayLink(id, l, f.Delay.Nanos())
	case NetPartition:
		t.Partition(id, l, f.OneWay)
	case NetClog:
		t.Clog(id, l)

	case DataDrop:
		t.DropRecords(id, l, f.Probability)
	case DataDuplicate:
		t.DuplicateRecords(id, l, f.Probability)
	case DataReorder:
		t.ReorderRecords(id, l)

	case StorageFail:
		t.FailWrites(id, Keys{Store: f.Store, Prefix: f.Key}, f.Probability)
	case StorageReadFail:
		t.FailReads(id, Keys{Store: f.Store, Prefix: f.Key}, f.Probability)
	case StorageSlow:
		t.SlowWrites(id, Keys{Store: f.Store, Prefix: f.Key}, f.Delay.Nanos(), f.Probability)
	case StorageTorn:
		t.TearWrites(id, Keys{Store: f.Store, Prefix: f.Key}, f.Probability)
	case StorageCorrupt:
		t.CorruptWrites(id, Keys{Store: f.Store, Prefix: f.Key}, f.Probability)
	case StorageUnavailable:
		t.MakeUnavailable(id, f.Store)
	case StorageLost:
		t.LoseAckedWrites(id, Keys{Store: f.Store, Prefix: f.Key}, f.Probability)

	case ExternalTimeout:
		t.TimeOutTransactions(id, f.Timeout.Nanos())
	case ExternalCommitFail:
		t.FailCommits(id, f.Probability)
	case ExternalWriteFail:
		t.FailSinkWrites(id, f.Probability, false)
	case ExternalWriteLost:
		t.FailSinkWrites(id, f.Probability, true)

	case ClockSkew:
		t.SkewTimers(id, f.Host, f.SkewPPM)

	default:
		panic("faults: no target method for kind " + string(f.Kind))
	}
}

// applyAction carries out operator action f on t.
func applyAction(t Target, f Fault) {
	switch f.Kind {
	case TriggerSavepoint:
		t.TriggerSavepoint()
	case TriggerCheckpoint:
		t.TriggerCheckpoint()
	case StopWithSavepoint, StopWithSavepointDrain:
		t.StopWithSavepoint(f.Kind == StopWithSavepointDrain)
	case ResubmitClaim, ResubmitNoClaim, ResubmitLegacy:
		t.ResubmitJob(strings.TrimPrefix(string(f.Kind), "resubmit."))
	case Rescale:
		t.RescaleJob(f.Operator, f.Parallelism, cmp.Or(f.RestoreMode, "claim"))
	default:
		panic("faults: no action of kind " + string(f.Kind))
	}
}
