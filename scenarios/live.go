package scenarios

import (
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
)

// LiveJob returns what a live run of s needs (package engine/live, simrun live): the engine
// job a simulated run of s runs, and the reference its trace is judged against
// (ReferenceFor). It refuses what ReferenceFor refuses. The scenario's faults, swarm and
// script are not part of the job: they are the simulator's, and a live run leaves them out.
func LiveJob(s *Scenario) (engine.Config, checker.Reference, error) {
	ref, err := ReferenceFor(s)
	if err != nil {
		return engine.Config{}, checker.Reference{}, err
	}
	if ref.Liveness.ReactionMaxNanos > 0 {
		// A live host wakes for a timer or a message when its goroutine is scheduled, not
		// in the instant the simulator acts in: a loaded machine delays it by far more than
		// the network's delay.
		ref.Liveness.ReactionMaxNanos = max(ref.Liveness.ReactionMaxNanos, liveReactionMaxNanos)
	}
	cfg, err := engineConfig(s)
	return cfg, ref, err
}

// liveReactionMaxNanos is the least reaction bound of a live run.
const liveReactionMaxNanos = int64(100 * time.Millisecond)
