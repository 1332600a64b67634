package scenarios

import (
	"maps"
	"slices"

	"github.com/ckptsim/ckptsim/checker"
)

// ReferenceFor returns the reference model a run of s is judged by: the output a correct run
// commits, the token total, the liveness bounds, the guarantee its sinks promise and every
// property the job promises (Promises, which checker.DefaultProperties chooses from). It has
// no trace hash, which only a run gives. With checker.MarshalReference it becomes a reference
// file, so that a trace of the same job from another engine, or from a run of this one, can
// be judged by simrun check. The result is the caller's own: changing it changes no run.
func ReferenceFor(s *Scenario) (checker.Reference, error) {
	_, ref, err := runnable(&Plan{Scenario: s})
	if err != nil {
		return checker.Reference{}, err
	}
	// The cached reference is shared by every run of s.
	ref.Output = maps.Clone(ref.Output)
	ref.Liveness.FinishTasks = slices.Clone(ref.Liveness.FinishTasks)
	// What the job promises, so that a check against the reference judges what the run did.
	ref.Promises = Promises(s)
	return ref, nil
}
