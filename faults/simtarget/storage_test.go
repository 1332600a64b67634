package simtarget_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// Each storage fault, in a window [10.5, 20.5)ms on the disk store, seen through puts and
// gets issued from a host: during the window, after it, and on the other store.
func TestStorageFaults(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault faults.Fault
		check func(t *testing.T, r *rig, during, after, other, readBack *storeResult)
	}{
		{"failed write", faults.Fault{Kind: faults.StorageFail, Store: "disk", Probability: 1},
			func(t *testing.T, r *rig, during, after, other, _ *storeResult) {
				wantErr(t, "put during", during, sim.ErrWriteFailed)
				wantErr(t, "put after", after, nil)
				wantErr(t, "put on meta", other, nil)
				if _, err := r.stores["disk"].Peek("during"); !errors.Is(err, sim.ErrNotFound) {
					t.Errorf("a failed put left a value: Peek err = %v", err)
				}
			}},
		{"slow write", faults.Fault{Kind: faults.StorageSlow, Store: "disk", Delay: faults.Duration(nanos(5))},
			func(t *testing.T, r *rig, during, after, other, _ *storeResult) {
				wantErr(t, "put during", during, nil)
				if during.at != 21*ms { // issued at 15ms: 1ms latency + 5ms
					t.Errorf("slow put completed at %v, want 21ms", during.at)
				}
				if after.at != 26*ms || other.at != 16*ms {
					t.Errorf("puts completed at %v (after) and %v (meta), want 26ms and 16ms", after.at, other.at)
				}
			}},
		{"torn write", faults.Fault{Kind: faults.StorageTorn, Store: "disk", Probability: 1},
			func(t *testing.T, r *rig, during, after, other, readBack *storeResult) {
				wantErr(t, "put during (acknowledged)", during, nil)
				wantErr(t, "read back", readBack, sim.ErrCorrupt)
			}},
		{"corrupted write", faults.Fault{Kind: faults.StorageCorrupt, Store: "disk", Probability: 1},
			func(t *testing.T, r *rig, during, after, other, readBack *storeResult) {
				wantErr(t, "put during (acknowledged)", during, nil)
				wantErr(t, "read back", readBack, sim.ErrCorrupt)
			}},
		{"unavailable", faults.Fault{Kind: faults.StorageUnavailable}, // every store
			func(t *testing.T, r *rig, during, after, other, readBack *storeResult) {
				wantErr(t, "put during", during, sim.ErrUnavailable)
				wantErr(t, "put on meta during", other, sim.ErrUnavailable)
				wantErr(t, "put after", after, nil)
			}},
		{"lost after ack", faults.Fault{Kind: faults.StorageLost, Store: "disk", Probability: 1},
			func(t *testing.T, r *rig, during, after, other, readBack *storeResult) {
				wantErr(t, "put during (acknowledged)", during, nil)
				wantErr(t, "read back", readBack, sim.ErrNotFound)
				wantErr(t, "put after", after, nil)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, rigOptions{seed: 1})
			c.fault.Window = faults.Duration(nanos(10))
			during := r.put(15*ms, "disk", "during", "checkpoint-7")
			after := r.put(25*ms, "disk", "after", "checkpoint-8")
			other := r.put(15*ms, "meta", "other", "checkpoint-7")
			getDuring := r.get(15*ms, "disk", "before") // a read in the window
			r.put(5*ms, "disk", "before", "checkpoint-6")
			readBack := r.get(30*ms, "disk", "during")
			r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: c.fault})
			r.run(100)
			for _, res := range []*storeResult{during, after, other, readBack, getDuring} {
				if !res.done {
					t.Fatal("a store operation never completed")
				}
			}
			c.check(t, r, during, after, other, readBack)
			// Reads are hit only by unavailability (read failures have a test of their own).
			wantRead := error(nil)
			if c.fault.Kind == faults.StorageUnavailable {
				wantRead = sim.ErrUnavailable
			}
			wantErr(t, "get during", getDuring, wantRead)
			if getDuring.at != 16*ms {
				t.Errorf("get during completed at %v, want 16ms (reads are never slowed)", getDuring.at)
			}
		})
	}
}

func wantErr(t *testing.T, what string, res *storeResult, want error) {
	t.Helper()
	if !errors.Is(res.err, want) || (want == nil && res.err != nil) {
		t.Errorf("%s: err = %v, want %v", what, res.err, want)
	}
}

// Faults with a probability below 1 hit some writes and not others, drawing from the World's
// storage stream; overlapping slow writes add up.
func TestStorageProbabilityAndOverlap(t *testing.T) {
	r := newRig(t, rigOptions{seed: 3})
	var puts []*storeResult
	for i := range 40 {
		puts = append(puts, r.put(msAt(11+0.1*float64(i)), "disk", fmt.Sprintf("k%02d", i), "v"))
	}
	slow := r.put(15*ms, "meta", "slow", "v")
	r.inject(rigPhases,
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{Kind: faults.StorageFail, Store: "disk", Probability: 0.5, Window: faults.Duration(nanos(10))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{Kind: faults.StorageSlow, Store: "meta", Delay: faults.Duration(nanos(2)), Window: faults.Duration(nanos(10))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{Kind: faults.StorageSlow, Delay: faults.Duration(nanos(3)), Window: faults.Duration(nanos(10))}},
	)
	r.run(100)
	failed := 0
	for _, p := range puts {
		if errors.Is(p.err, sim.ErrWriteFailed) {
			failed++
		}
	}
	if failed == 0 || failed == len(puts) {
		t.Errorf("%d of %d puts failed at probability 0.5", failed, len(puts))
	}
	if slow.at != 21*ms { // 15 + 1 + 2 + 3
		t.Errorf("put under two slow-write effects completed at %v, want 21ms", slow.at)
	}
}

// A read failure with a key prefix fails the reads of the keys under it and no other
// operation: one copy of a value kept twice is unreadable while the other reads.
func TestStorageReadFailOnOneKey(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.put(5*ms, "disk", "copy.0", "v0")
	r.put(5*ms, "disk", "copy.1", "v1")
	hit := r.get(15*ms, "disk", "copy.1")
	spared := r.get(15*ms, "disk", "copy.0")
	write := r.put(15*ms, "disk", "copy.1", "v2")
	after := r.get(25*ms, "disk", "copy.1")
	r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{
		Kind: faults.StorageReadFail, Store: "disk", Key: "copy.1", Probability: 1, Window: faults.Duration(nanos(10))}})
	r.run(100)
	wantErr(t, "get of the hit key", hit, sim.ErrReadFailed)
	wantErr(t, "get of the other key", spared, nil)
	wantErr(t, "put of the hit key", write, nil)
	wantErr(t, "get after the window", after, nil)
}
