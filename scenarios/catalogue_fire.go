package scenarios

// faultsMayMiss names the built-ins with a fixed fault list that do not require every fault
// to fire, each with why. Keep it short: a fault that fires on no seed tests nothing.
var faultsMayMiss = map[string]string{
	// Its second coordinator crash waits for a third checkpoint abort, which 9 of its 10
	// default seeds no longer reach once the first crash has recovered the coordinator.
	// Moving it (nth=2) would change every trace of the scenario: that is the catalogue's
	// call, not this flag's.
	"ambiguous-metadata": "the second coordinator crash fires on 1 of the 10 default seeds",
}

// requireFaultsToFire sets Expect.EveryFaultFires on a built-in with a fixed fault list,
// unless faultsMayMiss excuses it. A built-in that says it survives a crash must not pass
// on a seed where the crash never came, and a negative control must not fail for another
// reason than its fault. Swarm built-ins are left alone: their schedule is drawn per seed,
// and an event trigger the draw aims at a task's nth acknowledgement may miss on a new seed
// with nothing wrong; sweeps count those runs (unfired) instead.
func requireFaultsToFire(s *Scenario) {
	if len(s.Faults) == 0 {
		return
	}
	if _, excused := faultsMayMiss[s.Name]; excused {
		return
	}
	s.Expect.EveryFaultFires = true
}
