package faults

import "slices"

// Fired returns, per entry in schedule order, how many times its fault was injected. An entry
// fired when its fault was injected: announced by a fault event and handed to the Target.
// A trigger that came due outside the fault phase, or once MaxFaults faults had been
// injected (Skipped), did not fire: nothing happened to the system. A windowed fault fired
// when its window opened, even if heal closed it early; a chance trigger may fire up to its
// max times, and once is enough.
func (in *Injector) Fired() []int { return slices.Clone(in.fired) }

// Unfired returns the indices of the entries whose fault was never injected, in schedule
// order. A run that passes with an entry here passed without that fault: it says nothing about
// the protocol's answer to it, which is why scenarios report these and can require none.
func (in *Injector) Unfired() []int {
	var unfired []int
	for i, n := range in.fired {
		if n == 0 {
			unfired = append(unfired, i)
		}
	}
	return unfired
}
