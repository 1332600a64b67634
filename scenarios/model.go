package scenarios

import "github.com/ckptsim/ckptsim/faults"

// InModel reports whether fault f is one a correct engine must survive in a run of s, a
// complete scenario. Most kinds decide alone (faults.Kind.OutOfModel); two depend on the
// run. storage.lost is survivable where the engine reads every write back (no
// unverified_writes), which finds a lost write at once and handles it as a failed one.
// external.timeout is survivable where its timeout is above the longest a transaction
// may stay open in s (openTransactionBound), so that it aborts none. scenarios.Generate
// draws both only so.
func (s *Scenario) InModel(f faults.Fault) bool {
	switch f.Kind {
	case faults.StorageLost:
		return !s.Checkpoint.UnverifiedWrites
	case faults.ExternalTimeout:
		return Duration(f.TimeoutNanos) >= openTransactionBound(s)
	}
	return !f.OutOfModel()
}
