package scenarios

import (
	"strings"
	"testing"
)

// TestPlanTurnsAPanicIntoAnError: a panic while a job is assembled (here a scenario that is
// not there at all) is an error that says so, never a crash of the caller.
func TestPlanTurnsAPanicIntoAnError(t *testing.T) {
	_, err := NewSimulation().Plan(nil, 1)
	if err == nil || !strings.Contains(err.Error(), "assembling the job panicked") {
		t.Fatalf("err %v, want the panic as an error", err)
	}
}

// TestRefusedIsAJudgedFailure: a refused job of ckptsim's own fails job-accepted, with its
// plan, and is unexpected where the scenario expects a pass.
func TestRefusedIsAJudgedFailure(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	p, res := Refused(s, 3, errString("no"))
	if p.Scenario != s || p.Seed != 3 || res.Verdict != VerdictFail || !res.Unexpected ||
		len(res.Violations) != 1 || res.Violations[0].Property != PropertyJobAccepted {
		t.Fatalf("plan %+v, result %+v", p, res)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
