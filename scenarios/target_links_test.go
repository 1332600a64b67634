package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/faults"
)

// FaultHostLinks names the sim link the simulation really routes each channel and control
// link over, for every built-in topology, and lists on it exactly the links routed the same
// way.
func TestFaultHostLinksMatchTheRoutes(t *testing.T) {
	for _, s := range Builtins() {
		p, err := NewSimulation().Plan(s, s.Seeds.First)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		run, err := newRun(p, RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		sys := s.System()
		onSimLink := map[string][]faults.Link{}
		for _, r := range routes(run.job.Env, sys) {
			name := r.Sim.From().Name() + "->" + r.Sim.To().Name()
			onSimLink[name] = append(onSimLink[name], r.Link)
		}
		for _, r := range routes(run.job.Env, sys) {
			got := s.FaultHostLinks(faults.Fault{Kind: faults.NetClog, From: r.Link.From, To: r.Link.To})
			if len(got) != 1 {
				t.Fatalf("%s: %v: %d host links, want 1", s.Name, r.Link, len(got))
			}
			name := r.Sim.From().Name() + "->" + r.Sim.To().Name()
			if got[0].From+"->"+got[0].To != name {
				t.Errorf("%s: %v: host link %s->%s, routed over %s", s.Name, r.Link, got[0].From, got[0].To, name)
			}
			if diff := cmp.Diff(onSimLink[name], got[0].Carries); diff != "" {
				t.Errorf("%s: %v: carried links (-routed +said):\n%s", s.Name, r.Link, diff)
			}
		}
	}
}

func TestFaultHostLinksOfEachKind(t *testing.T) {
	s, err := Lookup("control-reorder-aligned")
	if err != nil {
		t.Fatal(err)
	}
	// The README's example: a reorder of source-0 -> sum-0 acts on tm-0 -> tm-0, which also
	// carries sum-0 -> sink-0.
	got := s.FaultHostLinks(faults.Fault{Kind: faults.DataReorder, From: "source-0", To: "sum-0"})
	want := []HostLink{{From: "tm-0", To: "tm-0", Carries: []faults.Link{{From: "source-0", To: "sum-0"}, {From: "sum-0", To: "sink-0"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reorder (-want +got):\n%s", diff)
	}
	// A two-way partition acts on both directions where links run both ways; a one-way
	// partition on one.
	both := s.FaultHostLinks(faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum-1"})
	if len(both) != 2 || both[0].From != HostCoordinator || both[0].To != "tm-1" || both[1].From != "tm-1" || both[1].To != HostCoordinator {
		t.Errorf("two-way partition: %+v", both)
	}
	if one := s.FaultHostLinks(faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum-1", OneWay: true}); len(one) != 1 {
		t.Errorf("one-way partition: %+v", one)
	}
	// A notification drop to one task acts on the coordinator's link to its host, with the
	// notifications of every task there.
	notify := s.FaultHostLinks(faults.Fault{Kind: faults.NetDrop, Message: faults.MessageNotify, From: faults.Coordinator, To: "sum-1"})
	if len(notify) != 1 || notify[0].From != HostCoordinator || notify[0].To != "tm-1" || len(notify[0].Carries) != 3 {
		t.Errorf("notification drop: %+v", notify)
	}
	// Faults that name no link, or no particular one, have none to report.
	for _, f := range []faults.Fault{
		{Kind: faults.CrashTask, Task: "sum-0"},
		{Kind: faults.NetDrop, Message: faults.MessageBarrier},
		{Kind: faults.DataDrop},
	} {
		if got := s.FaultHostLinks(f); got != nil {
			t.Errorf("%s: %+v, want none", f, got)
		}
	}
}
