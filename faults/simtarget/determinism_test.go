package simtarget_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
)

// outcome runs a busy world with jittery links under every probabilistic kernel-level fault
// and returns everything the hosts saw, the stores' outcomes and the trace hash.
func outcome(t *testing.T, seed uint64) (seen []string, hash string) {
	r := newRig(t, rigOptions{seed: seed, jitter: 300 * time.Microsecond})
	for _, l := range rigLinks {
		for _, class := range []simtarget.Class{simtarget.ClassRecord, simtarget.ClassBarrier, simtarget.ClassAck} {
			r.stream(l, class, ms, 700*time.Microsecond, 80)
		}
	}
	var puts []*storeResult
	for i := range 40 {
		puts = append(puts, r.put(msAt(2+float64(i)), "disk", fmt.Sprintf("k%02d", i%8), "value"))
	}
	r.inject(faults.Phases{Fault: faults.Duration(nanos(60)), Liveness: faults.Duration(nanos(20))},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(3))), Fault: faults.Fault{Kind: faults.NetDrop, Message: faults.MessageBarrier, Probability: 0.3, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(3))), Fault: faults.Fault{Kind: faults.NetDrop, Message: faults.MessageAck, Probability: 0.3, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(5))), Fault: faults.Fault{Kind: faults.DataDrop, Probability: 0.2, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(5))), Fault: faults.Fault{Kind: faults.DataDuplicate, Probability: 0.2, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(8))), Fault: faults.Fault{Kind: faults.DataReorder, From: "src", To: "sum", Window: faults.Duration(nanos(30))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(4))), Fault: faults.Fault{Kind: faults.StorageFail, Probability: 0.3, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(4))), Fault: faults.Fault{Kind: faults.StorageTorn, Probability: 0.3, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(4))), Fault: faults.Fault{Kind: faults.StorageLost, Probability: 0.3, Window: faults.Duration(nanos(40))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(20))), Fault: faults.Fault{Kind: faults.PauseHost, Host: "h-sum", Window: faults.Duration(nanos(7))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(30))), Fault: faults.Fault{Kind: faults.CrashHost, Host: "h-src", Window: faults.Duration(nanos(5))}},
	)
	r.run(200)
	for _, d := range r.got {
		seen = append(seen, fmt.Sprintf("%v %s %s#%d", d.at, d.link, d.class, d.n))
	}
	for i, p := range puts {
		seen = append(seen, fmt.Sprintf("put %d: %v at %v", i, p.err, p.at))
	}
	for _, key := range r.stores["disk"].Keys("") {
		_, err := r.stores["disk"].Peek(key)
		seen = append(seen, fmt.Sprintf("disk %s: %v", key, err))
	}
	return seen, r.rec.Hash()
}

// Same seed, same outcome: what every host saw, every store result and the trace hash. A
// different seed draws differently.
func TestSameSeedSameOutcome(t *testing.T) {
	seen, hash := outcome(t, 42)
	again, hashAgain := outcome(t, 42)
	check(t, "outcome of seed 42 run twice", seen, again)
	if hash != hashAgain {
		t.Errorf("trace hashes differ: %s, %s", hash, hashAgain)
	}
	if other, _ := outcome(t, 43); slices.Equal(seen, other) {
		t.Error("seeds 42 and 43 gave the same outcome")
	}
}
