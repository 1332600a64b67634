package faults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestWithoutAndHalve(t *testing.T) {
	s := Schedule{Entries: []Entry{
		{At(1000), Fault{Kind: CrashTask, Task: "a"}},
		{Nth(5, Match{Kind: "snapshot.ack"}), Fault{Kind: NetDrop, Message: MessageAck, Probability: 0.5, Window: 9}},
	}}
	orig := s.String()
	if got := s.Without(0).String(); got != s.Entries[1].String() {
		t.Errorf("Without(0) = %s", got)
	}
	if s.Without(0).Without(0).Entries != nil {
		t.Error("removing every entry left a non-nil slice")
	}
	h, ok := s.Halve(1, ShrinkWindow)
	if !ok || h.Entries[1].Fault.Window != 4 {
		t.Errorf("Halve window = %v, %v", h, ok)
	}
	h, ok = s.Halve(1, ShrinkNth)
	if !ok || h.Entries[1].Trigger.Nth != 2 {
		t.Errorf("Halve nth = %v, %v", h, ok)
	}
	h, ok = s.Halve(1, ShrinkProbability)
	if !ok || h.Entries[1].Fault.Probability != 0.25 {
		t.Errorf("Halve probability = %v, %v", h, ok)
	}
	if _, ok := s.Halve(0, ShrinkWindow); ok {
		t.Error("halved the window of a crash, which has none")
	}
	if s.String() != orig {
		t.Errorf("shrink helpers changed the original:\n%s", s)
	}
	floors := Schedule{Entries: []Entry{{
		Chance(MinShrinkProbability, 1, Match{}),
		Fault{Kind: ClockSkew, Host: "h", SkewPPM: -1, Window: 1},
	}}}
	if c := floors.Shrinks(); len(c) != 1 || len(c[0].Entries) != 0 {
		t.Errorf("a schedule at its floors should only shrink by removal: %v", c)
	}
}

// Every candidate is valid and simpler, and taking candidates until none is left stops.
func TestShrinksStayValidAndTerminate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule(3).Draw(t, "schedule")
		steps := 0
		for {
			candidates := s.Shrinks()
			if len(candidates) == 0 {
				break
			}
			for _, c := range candidates {
				if err := c.Validate(); err != nil {
					t.Fatalf("candidate of\n%s\nis invalid: %v\n%s", s, err, c)
				}
				if len(c.Entries) > len(s.Entries) {
					t.Fatalf("candidate has more entries")
				}
			}
			// The last candidate is the smallest step: it makes the run as long as possible.
			next := candidates[len(candidates)-1]
			if cmp.Equal(next, s) {
				t.Fatalf("candidate equals its schedule:\n%s", s)
			}
			s = next
			if steps++; steps > 3*(9*64+10) {
				t.Fatalf("shrinking did not stop after %d steps; at\n%s", steps, s)
			}
		}
		if len(s.Entries) != 0 {
			t.Fatalf("shrinking stopped at a non-empty schedule:\n%s", s)
		}
	})
}
