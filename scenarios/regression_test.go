package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// regressions are catalogue runs (or testdata files) that sweeps found failing, with what was wrong. Each must
// now give its scenario's expected verdict; the simenv and sim tests named beside them pin
// the causes down in isolation.
var regressions = []struct {
	scenario string
	seed     uint64
	cause    string
}{
	{"standard", 32, "limit(events): clock.skew -1ppm on jm turned the coordinator's 1ns re-arm into 0ns (sim TestHostTimerSkewKeepsWaitsPositive)"},
	{"standard", 74, "limit(events): as seed 32"},
	{"explicit-unaligned", 51, "limit(events): as standard seed 32"},
	{"explicit-unaligned", 85, "limit(events): as standard seed 32"},
	{"explicit-unaligned", 24, "records lost: a corrupted counter write left no readable counter after a coordinator crash (TestCorruptedCounterWriteLeavesTheCounterReadable)"},
	{"standard", 287, "records lost: as explicit-unaligned seed 24, with a torn metadata write"},
	{"standard", 159, "listener contract: an id aborted before its counter write was durable was used again (TestAbortedIdIsNotReusedAfterCoordinatorCrash)"},
	{"explicit-unaligned", 150, "exactly-once: writes lost while ext was down, the transaction committed short (TestStoreCrashLosesNoWrite)"},
	{"explicit-unaligned", 214, "exactly-once: as seed 150"},
	{"state-leak-last-completion.json", 61297, "state.released: the metadata write that drops discarded checkpoints ran before this step's releases were held, so the last one never went (what generated seed 61297 drew before the generator's long runs)"},
	{"state-release-failover-overtook-acks.json", 12882, "state.released (a false alarm): checkpoint 110 completed while acks for 112 were in flight, which the checker took as proof they arrived before the failover that dropped them (checker TestStateReleasedExcusesAnAckAFailoverOvertook)"},
	{"metadata-write-holds-expiry.json", 20688, "checkpoint-timing: a checkpoint whose write queued behind a slow one was judged late to expire; Flink's canceller waits for the write in flight, so the checker now does (checker TestCheckpointTimingWaitsForTheMetadataWriteInFlight)"},
	{"coordinator-crash-at-recovery-failover.json", 47427, "listener-contract (a false alarm): the coordinator recovered, re-announced checkpoint 293, asked for a failover and crashed; the old incarnations got the news, which the checker took as sent to incarnations the failover had already restored from 293 (checker TestListenerContractKeepsTheOldIncarnationUntilItsRestore)"},
	{"abort-after-the-finish.json", 56340, "quiet (a false alarm): checkpoint 4 was persisting when the job finished and its write failed after; its abort is news, not a re-send (TestQuietAllowsALateAbortOnce)"},
	{"retention-write-lost-at-crash.json", 15954, "state-release (a false alarm): checkpoint 9's metadata write was in flight at a coordinator crash and lost; counting it pushed checkpoint 6 out of retention, and its state, which the store still retained, was taken for a leak (checker TestStateReleasedWaitsOutAWriteThatMayHaveBeenLost)"},
	{"finished-task-takes-a-later-marker.json", 50998, "barrier-handling (a false alarm): a sink that had acked its final snapshot took a cancel marker of a later checkpoint, which carries that snapshot, and was held to decline it (checker TestFinishedTaskOwesNothingForLaterCheckpoints)"},
	{"restart-delay-tail.json", 60730, "recovery-bound (a false alarm): a host restarted just before a restart.delay window ended came up 9.5s later, and the recovery it held up was judged as if no fault were in force (checker TestFaultSpansLastTheirDelay)"},
	{"trigger-burst-after-clog.json", 74691, "panic: a clog that held the triggers to a task host released 45 at once, the sources sent as many barriers into a channel blocked by an alignment, and the engine's self-check took events for buffers (bounded by credits plus four a pending checkpoint)"},
	{"crash-at-the-finish.json", 77623, "liveness: a crash that task.finish triggered hit the process between its trace of the finish and its exit, the finished job failed over, and the chandy-lamport coordinator, which had stopped ticking, never ordered the restored processes to finish"},
	{"savepoint-at-a-release-in-write-done.json", 132343, "panic: a savepoint asked for at a state.release that a metadata write's completion traced re-entered the coordinator before the write's checkpoint was off the queue"},
	{"trigger-at-metadata-write.json", 3110, "panic: a checkpoint asked for at checkpoint.persist re-entered the coordinator before its metadata write was marked in flight, and the same slot version was written twice"},
	{"terminal-snapshot-queued.json", 175589, "liveness: a chandy-lamport global snapshot that showed the job done was queued behind another's metadata write, and the queue dropped the flag that lets its completion end the job (engine/tokens queuedSnapshot)"},
	{"coordinator-crash-as-the-job-ends.json", 1, "liveness: the coordinator crashed as the first task exited, the job reported its end, and the next incarnation restarted the finished job from its final checkpoint (rapid seed 4 of TestCorrectProtocolSurvivesGeneratedFaults once job.finish was traced; Flink's FLINK-11813)"},
	{"finished-while-recovering.json", 69803, "liveness: a coordinator incarnation still reading the store when the job finished (its predecessor had completed the final checkpoint before it crashed) restarted the finished job"},
	{"final-acks-out-of-order.json", 50482, "state-release (a false alarm): a finished task's final snapshot was acked for checkpoint 12 before 10 and 11, and its own snapshot for 11, which carries 10's, was released while 11 was pending; the rule took the first final ack, not the oldest, and read no snapshot.carried (checker TestStateKeptWhilePendingSparesACarriedCheckpoint)"},
	{"tokens-finished-while-recovering.json", 202467, "liveness: as finished-while-recovering, in a chandy-lamport job: its coordinator, restarted after a crash, was still reading the store when the job finished, and restarted the finished job (engine/tokens checks CoordinatorHost.FinishReported)"},
	{"decline-behind-a-delay.json", 214208, "checkpoint-timing (a false alarm): sum-0's decline went out after a net.delay of its host's link to the coordinator ended, behind the messages the delay still held, and was judged as if delivered at once (checker TestCheckpointTimingWaitsOutADelaysTail)"},
	{"upload-outlives-exit.json", 87673, "state-release (unknown, a real leak): a piece whose upload was slowed past its task's exit was never deleted, since a broken channel killed the exited task's process before the upload landed; a task now exits only once the uploads it gave up ended (engine maybeExit)"},
	{"write-in-flight-never-landed.json", 155930, "state-release (a false alarm): a metadata write in flight at a crash, which the recovery showed never landed, was still taken as maybe completed at a later recovery, and so as holding pieces long deleted (checker TestPiecesKeptForgetsAWriteThatDidNotLand)"},
	{"ack-in-flight-as-a-partition-begins.json", 185918, "state-release (a false alarm): late acks sent just before a partition began were taken as heard, though the partition may have taken them on their way (checker TestStateReleasedExcusesAnAckInFlightAsALossBegins)"},
	{"savepoint-pending-at-the-stop.json", 41981, "checkpoint-outcome (a protocol defect): a savepoint pending when a stop-with-savepoint completed was never ended; the stop now aborts what is pending (protocol coordinator_stop.txt)"},
	{"stop-after-an-attempt-read-further.json", 53251, "exactly-once (a false alarm): an idempotent sink's upserts past a stop's cut, made by an attempt that then failed over to the start, were blamed on the stop (checker TestAnEarlierAttemptMayHaveWrittenPastTheStop)"},
	{"chandy-lamport-mesh", 74, "liveness: the order to finish, sent once, was lost in a partition and process a (then p-0) ran on forever (simenv TestTokensFinishDespiteALostFinishOrder)"},
}

func TestRegressions(t *testing.T) {
	sim := NewSimulation()
	for _, r := range regressions {
		s, err := regressionScenario(r.scenario)
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := Execute(sim, s, r.seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unexpected {
			t.Errorf("%s seed %d (%s): %s: %s %v", r.scenario, r.seed, r.cause, res.Verdict, res.Why, res.Violations)
		}
	}
}

// regressionScenarios are the scenario files of testdata (most of them drawn by the
// generator, and extracted where they failed), for tests that want more than the catalogue.
func regressionScenarios(t *testing.T) []*Scenario {
	t.Helper()
	var all []*Scenario
	for _, r := range regressions {
		if !strings.HasSuffix(r.scenario, ".json") {
			continue
		}
		s, err := regressionScenario(r.scenario)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	return all
}

// regressionScenario is a built-in scenario, or a file of testdata when name ends in .json.
func regressionScenario(name string) (*Scenario, error) {
	if !strings.HasSuffix(name, ".json") {
		return Lookup(name)
	}
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		return nil, err
	}
	return Parse(data)
}
