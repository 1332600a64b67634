package tokens_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// scriptedGraph is tokenGraph run by script instead of random transfers.
func scriptedGraph(maxConcurrent int, script *tokens.Script) engine.Graph {
	g := tokenGraph()
	spec := g.Operators[0].Logic.(tokens.Workload)
	spec.Transfers, spec.MaxConcurrent, spec.Script = 0, maxConcurrent, script
	g.Operators[0].Logic = spec
	return g
}

// ringTransfers passes tokens round tokenGraph's ring every millisecond from from to to.
func ringTransfers(from, to time.Duration) []tokens.ScriptedTransfer {
	var trs []tokens.ScriptedTransfer
	for at := from; at < to; at += time.Millisecond {
		for i := range 5 {
			trs = append(trs, tokens.ScriptedTransfer{At: at, From: i, To: (i + 1) % 5, Amount: int64(1 + i)})
		}
	}
	return trs
}

// mostInProgress returns the most snapshots triggered and not yet completed or aborted (nor
// ended by a failover) at once.
func mostInProgress(events []trace.Event) int {
	open, most := map[uint64]bool{}, 0
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			open[e.CP] = true
			most = max(most, len(open))
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort, trace.KindJobFailover:
			delete(open, e.CP)
			if e.Kind == trace.KindJobFailover {
				clear(open)
			}
		}
	}
	return most
}

// TestScriptedSnapshotsStartOnTime: every scripted snapshot start used to persist the id
// counter first, one write at a time (about 5ms each), so snapshots asked for together
// started one after another, none at its time, and a send and a snapshot of the same tick
// never raced. Ids are now reserved ahead in blocks: a snapshot starts (checkpoint.trigger)
// in the instant the script asks for it, and those asked for together are in progress
// together.
func TestScriptedSnapshotsStartOnTime(t *testing.T) {
	ms := time.Millisecond
	script := &tokens.Script{
		Transfers: append([]tokens.ScriptedTransfer{{At: 0, From: 0, To: 1, Amount: 10}}, ringTransfers(ms, 20*ms)...),
		Snapshots: []tokens.ScriptedSnapshot{
			{At: 0, Initiator: 1}, // with the send 0 -> 1 of the same tick
			{At: 2 * ms, Initiator: 0}, {At: 2 * ms, Initiator: 2}, {At: 2 * ms, Initiator: 3}, {At: 2 * ms, Initiator: 4},
			{At: 9 * ms, Initiator: 2}, {At: 9 * ms, Initiator: 0},
		},
		End: 30 * ms,
	}
	cfg := engine.DefaultConfig(scriptedGraph(len(script.Snapshots), script)) // room for all: none waits for room
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), seed, nil, 30*time.Second)
		events := job.Recorder.Events()
		var triggers []time.Duration
		for _, e := range events {
			if e.Kind == trace.KindCheckpointTrigger {
				triggers = append(triggers, time.Duration(e.T))
			}
		}
		if len(triggers) < len(script.Snapshots) {
			t.Fatalf("seed %d: %d snapshots triggered, want at least %d", seed, len(triggers), len(script.Snapshots))
		}
		for i, sn := range script.Snapshots {
			if triggers[i] != sn.At {
				t.Errorf("seed %d: scripted snapshot %d (at %v, initiator %d) started at %v", seed, i, sn.At, sn.Initiator, triggers[i])
			}
		}
		if most := mostInProgress(events); most < 4 {
			t.Errorf("seed %d: at most %d snapshots in progress at once, want the 4 asked for at 2ms", seed, most)
		}
		checkBalances(t, job, ref, "scripted")
		checkTokens(t, events, ref.TokenTotal)
		simenvtest.CheckCuts(t, events)
		simenvtest.CheckIDsAndRecovery(t, events)
	}
}

// TestTokenIDsGrowAcrossCoordinatorCrashes: ids are handed out from blocks reserved ahead,
// so an incarnation that crashes has used ids the durable counter does not name one by one.
// Its successor starts above the whole persisted block: every id asked for is higher than
// every id asked for before, across crashes, also when bursts of snapshots outrun a block
// (thirty at one initiator use 150 ids, two blocks of this job's 80) and wait for the next.
func TestTokenIDsGrowAcrossCoordinatorCrashes(t *testing.T) {
	ms := time.Millisecond
	script := &tokens.Script{Transfers: ringTransfers(0, 90*ms), End: 100 * ms}
	for _, at := range []time.Duration{ms, 30 * ms, 70 * ms} {
		for range 30 {
			script.Snapshots = append(script.Snapshots, tokens.ScriptedSnapshot{At: at, Initiator: 0})
		}
	}
	cfg := engine.DefaultConfig(scriptedGraph(2, script))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crashes := []simenvtest.Fault{
		{At: 20 * ms, Kind: "coordinator", Down: 5 * ms},
		{At: 50 * ms, Kind: "coordinator", Down: 5 * ms},
		{At: 72 * ms, Kind: "coordinator", Down: 1 * ms},
	}
	for seed := uint64(1); seed <= 4; seed++ {
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), seed, crashes, 30*time.Second)
		events := job.Recorder.Events()
		var last uint64
		requests, recoveries := 0, 0
		for _, e := range events {
			switch e.Kind {
			case trace.KindCheckpointRequest:
				if e.CP <= last {
					t.Errorf("seed %d: seq %d: checkpoint %d asked for after %d", seed, e.Seq, e.CP, last)
				}
				last = e.CP
				requests++
			case trace.KindCoordinatorRecover:
				recoveries++
			}
		}
		if recoveries != len(crashes) || requests < 60 {
			t.Errorf("seed %d: %d recoveries, %d requests: the test misses its point", seed, recoveries, requests)
		}
		t.Logf("seed %d: %d requests, the last %d, %d recoveries", seed, requests, last, recoveries)
		checkBalances(t, job, ref, "coordinator crashes")
		checkTokens(t, events, ref.TokenTotal)
		simenvtest.CheckIDsAndRecovery(t, events)
	}
}
