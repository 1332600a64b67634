package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// TestInlineStateUnderTargetedCrashes: inline state under crashes of tasks, hosts and the
// coordinator triggered at the Nth snapshot.taken, snapshot.ack, checkpoint.persist,
// checkpoint.complete, barrier.send, task.restore, notify.complete or task.finish, so that
// they land between an inline snapshot's cut and its acknowledgement (ackInlined), between a
// checkpoint's metadata write and its completion, and in the middle of restores from inline
// state. Aligned (two concurrent checkpoints), unaligned and aligned-with-timeout, with a
// threshold that inlines some snapshots (300 bytes) or all, one retained checkpoint. Every
// run must finish with exact output, consistent cuts and faithful restores. Five seeds per
// case by default; CKPTSIM_EXPLORE=1 runs a hundred (about 10 s).
func TestInlineStateUnderTargetedCrashes(t *testing.T) {
	seeds := uint64(5)
	if os.Getenv("CKPTSIM_EXPLORE") != "" {
		seeds = 100
	}
	kinds := []string{trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindCheckpointPersist, trace.KindCheckpointComplete, trace.KindBarrierSend, trace.KindTaskRestore, trace.KindNotifyComplete, trace.KindTaskFinish}
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2"}
	runs, restarted := 0, 0
	for _, mode := range []protocol.Mode{protocol.ModeAligned, protocol.ModeUnaligned, protocol.ModeAlignedWithTimeout} {
		for _, threshold := range []int{300, 20 << 10} {
			for seed := uint64(1); seed <= seeds; seed++ {
				cfg := engine.DefaultConfig(engine.KeyedSumGraph(3, 1000, 2000, engine.TwoPhaseCommit))
				cfg.Checkpoint.Mode = mode
				if mode == protocol.ModeAlignedWithTimeout {
					cfg.Checkpoint.AlignmentTimeout = time.Millisecond
				}
				if mode == protocol.ModeAligned {
					cfg.Checkpoint.MaxConcurrent = 2
				}
				cfg.Checkpoint.Interval = 20 * time.Millisecond
				cfg.Checkpoint.RetainedCheckpoints = 1
				cfg.InlineStateBytes = threshold
				rng := rand.New(rand.NewPCG(seed, uint64(threshold)))
				var fs []simenvtest.Fault
				for range 3 {
					kind := kinds[rng.IntN(len(kinds))]
					nth := 1 + rng.IntN(6)
					tasks := cfg.Graph.Tasks()
					var target string
					if kind != trace.KindCheckpointPersist && kind != trace.KindCheckpointComplete {
						target = tasks[rng.IntN(len(tasks))]
					}
					count := 0
					on := func(e trace.Event) bool {
						if e.Kind != kind || target != "" && e.Task != target {
							return false
						}
						count++
						return count == nth
					}
					f := simenvtest.Fault{On: on, Kind: "task", Name: target}
					switch {
					case target == "" || rng.IntN(3) == 0:
						f.Kind, f.Name = "coordinator", fmt.Sprintf("%s#%d", kind, nth)
						f.Down = time.Duration(rng.IntN(50)) * time.Millisecond
					case rng.IntN(2) == 0:
						f.Kind, f.Name = "host", hosts[1+rng.IntN(3)]
						f.Down = time.Duration(rng.IntN(100)) * time.Millisecond
					}
					fs = append(fs, f)
				}
				name := fmt.Sprintf("%s/%d/seed%d", mode, threshold, seed)
				job, err := simenvtest.RunJob(cfg, simenv.DefaultConfig(3), seed, fs, 60*time.Second)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime)); len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("%s: lost %d %v, extra %d %v, wrong %d %v", name, len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				simenvtest.CheckCuts(t, job.Recorder.Events())
				simenvtest.CheckRestores(t, job.Recorder.Events())
				runs++
				if job.Runtime.Attempt() > 1 {
					restarted++
				}
			}
		}
	}
	// The crashes are meant to hit: most runs must have failed over at least once.
	if 2*restarted < runs {
		t.Errorf("only %d of %d runs failed over", restarted, runs)
	}
}
