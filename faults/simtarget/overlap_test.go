package simtarget_test

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// refEffect is one active effect in the reference model: plain data, no reference counts.
type refEffect struct {
	id     faults.EffectID
	kind   faults.Kind
	link   faults.Link
	oneWay bool
	host   string
	store  string
	ppm    int64
}

// The World against a dumb reference: after any sequence of overlapping starts, ends and
// heals, each link is cut, held, each store unavailable, each host down and skewed exactly
// when some active effect in the reference says so.
func TestOverlappingEffectsMatchReference(t *testing.T) {
	hosts := []string{"h-src", "h-sum", "h-coord"}
	stores := []string{"", "disk", "meta"}
	rapid.Check(t, func(rt *rapid.T) {
		r := newRig(t, rigOptions{seed: 1})
		w := r.world
		var active []refEffect
		next := faults.EffectID(1)
		for range rapid.IntRange(1, 40).Draw(rt, "steps") {
			e := refEffect{id: next}
			switch op := rapid.IntRange(0, 6).Draw(rt, "op"); {
			case op == 0 && len(active) > 0:
				i := rapid.IntRange(0, len(active)-1).Draw(rt, "end")
				w.End(active[i].id)
				active = slices.Delete(active, i, i+1)
				continue
			case op == 1:
				e.kind, e.link, e.oneWay = faults.NetPartition, rapid.SampledFrom(rigLinks).Draw(rt, "link"), rapid.Bool().Draw(rt, "oneway")
				w.Partition(e.id, e.link, e.oneWay)
			case op == 2:
				e.kind, e.link = faults.NetClog, rapid.SampledFrom(rigLinks).Draw(rt, "link")
				w.Clog(e.id, e.link)
			case op == 3:
				e.kind, e.host = faults.CrashHost, rapid.SampledFrom(hosts).Draw(rt, "host")
				w.CrashHost(e.id, e.host)
			case op == 4:
				e.kind, e.store = faults.StorageUnavailable, rapid.SampledFrom(stores).Draw(rt, "store")
				w.MakeUnavailable(e.id, e.store)
			case op == 5:
				e.kind, e.host, e.ppm = faults.ClockSkew, rapid.SampledFrom(hosts).Draw(rt, "host"), rapid.Int64Range(-600_000, 600_000).Draw(rt, "ppm")
				w.SkewTimers(e.id, e.host, e.ppm)
			case op == 6 && rapid.IntRange(0, 3).Draw(rt, "heal?") == 0:
				w.Heal()
				active = nil
				continue
			default:
				continue
			}
			next++
			active = append(active, e)
			checkAgainstReference(rt, r, active)
		}
		checkAgainstReference(rt, r, active)
	})
}

func checkAgainstReference(rt *rapid.T, r *rig, active []refEffect) {
	holds := func(pred func(refEffect) bool) bool { return slices.ContainsFunc(active, pred) }
	for _, l := range rigLinks {
		control := l.From == faults.Coordinator || l.To == faults.Coordinator
		partitioned := holds(func(e refEffect) bool {
			return e.kind == faults.NetPartition && (e.link == l || (!e.oneWay && e.link == faults.Link{From: l.To, To: l.From}))
		})
		clogged := holds(func(e refEffect) bool { return e.kind == faults.NetClog && e.link == l })
		sl := r.links[l]
		if got, want := sl.Partitioned(), partitioned && control; got != want {
			rt.Fatalf("%s partitioned = %v, want %v; active %v", l, got, want, active)
		}
		if got, want := sl.Clogged(), clogged || (partitioned && !control); got != want {
			rt.Fatalf("%s clogged = %v, want %v; active %v", l, got, want, active)
		}
	}
	for _, name := range []string{"disk", "meta"} {
		st := r.stores[name]
		want := holds(func(e refEffect) bool {
			return e.kind == faults.StorageUnavailable && (e.store == "" || e.store == name)
		})
		if st.Unavailable() != want {
			rt.Fatalf("store %s unavailable = %v, want %v; active %v", name, st.Unavailable(), want, active)
		}
	}
	for _, name := range []string{"h-src", "h-sum", "h-coord"} {
		h := r.hosts[name]
		down := holds(func(e refEffect) bool { return e.kind == faults.CrashHost && e.host == name })
		if h.Up() == down {
			rt.Fatalf("host %s up = %v, want %v; active %v", name, h.Up(), !down, active)
		}
		if down {
			continue
		}
		var ppm int64
		for _, e := range active {
			if e.kind == faults.ClockSkew && e.host == name {
				ppm += e.ppm
			}
		}
		ppm = min(max(ppm, -faults.MaxSkewPPM), faults.MaxSkewPPM)
		timer := h.After(time.Second, func() {})
		deadline, _ := timer.Deadline()
		timer.Stop()
		if want := r.k.Now() + sim.Time(time.Second)*sim.Time(1_000_000+ppm)/1_000_000; deadline != want {
			rt.Fatalf("host %s: a 1s timer is due at %v, want %v (skew %d ppm); active %v", name, deadline, want, ppm, active)
		}
	}
}
