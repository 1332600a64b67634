package spacetime

import (
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

func TestViolationMarks(t *testing.T) {
	r, bad := smallRun()
	phase := len(r.Events) - 1 // the "end" phase event, on no lane
	r.Violations = append(r.Violations,
		checker.Violation{Property: checker.PropLiveness, Seq: r.Events[phase].Seq, T: r.Events[phase].T, Task: "sum-0"},
		checker.Violation{Property: checker.PropDeterminism, Seq: 1 << 40, T: 7e6},
	)
	m := newModel(r)
	lane := func(name string) int {
		for i, l := range m.Lanes {
			if l == name {
				return i
			}
		}
		t.Fatalf("no lane %s", name)
		return -1
	}
	checks := []struct {
		event, lane int
		t           int64
	}{
		{bad, lane("sink-0"), r.Events[bad].T},    // at its event, on its event's lane
		{phase, lane("sum-0"), r.Events[phase].T}, // an event on no lane: the violation's task
		{-1, 0, 7e6}, // a seq the trace lacks: its own time, the coordinator's lane
	}
	for i, c := range checks {
		v := m.Violations[i]
		if v.Event != c.event || v.Lane != c.lane || v.T != c.t {
			t.Errorf("violation %d at event %d lane %d t %d, want event %d lane %d t %d", i, v.Event, v.Lane, v.T, c.event, c.lane, c.t)
		}
	}
}

func TestModelColumns(t *testing.T) {
	r, _ := smallRun()
	m := newModel(r)
	if len(m.Seq) != len(r.Events) || len(m.Line) != len(r.Events) {
		t.Fatalf("columns of %d and %d for %d events", len(m.Seq), len(m.Line), len(r.Events))
	}
	for i, e := range r.Events {
		if m.Kinds[m.Kind[i]] != e.Kind || m.Line[i] != e.String() || m.T[i] != e.T {
			t.Fatalf("event %d: kind %s line %s", i, m.Kinds[m.Kind[i]], m.Line[i])
		}
		onLane := m.Lane[i] >= 0
		if want := e.Kind != trace.KindPhase && e.Kind != trace.KindFault; onLane != want || (onLane && m.Lanes[m.Lane[i]] != e.Task) {
			t.Errorf("event %d (%s %s) on lane %d", i, e.Kind, e.Task, m.Lane[i])
		}
	}
	if m.T0 != 0 || m.T1 != r.Events[len(r.Events)-1].T {
		t.Errorf("range %d..%d", m.T0, m.T1)
	}
}
