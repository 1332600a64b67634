package scenarios_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// failingArtifact runs s on seed with r and returns the artifact of the (failing) run.
func failingArtifact(t *testing.T, r scenarios.Runner, s *scenarios.Scenario, seed uint64) *scenarios.Artifact {
	t.Helper()
	p, res, err := scenarios.Execute(r, s, seed, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == scenarios.VerdictPass {
		t.Fatalf("%s seed %d passed", s.Name, seed)
	}
	return scenarios.NewArtifact(p, res, "test-build")
}

func TestShrinkKeepsOnlyTheFaultThatMatters(t *testing.T) {
	s, err := scenarios.Lookup("storage-faults")
	if err != nil {
		t.Fatal(err)
	}
	// Plant a bug: the run fails exactly-once when the schedule tears state writes and the
	// input has at least MinFailingInput records.
	fake := &scenariotest.Fake{Fails: func(p *scenarios.Plan) []checker.Property {
		torn := slices.ContainsFunc(p.Faults.Entries, func(e faults.Entry) bool { return e.Fault.Kind == faults.StorageTorn })
		if torn && p.Scenario.Workload.Records >= scenariotest.MinFailingInput {
			return []checker.Property{checker.PropExactlyOnce}
		}
		return nil
	}}
	art := failingArtifact(t, fake, s, 3)
	small, report, err := scenarios.Shrink(fake, art, "test-build", scenarios.ShrinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Schedule.Entries) != 1 || small.Schedule.Entries[0].Fault.Kind != faults.StorageTorn {
		t.Errorf("shrunk schedule:\n%s\nwant only the torn write", small.Schedule)
	}
	if got := small.Scenario.Workload.Records; got != scenariotest.MinFailingInput {
		t.Errorf("shrunk input %d records, want %d", got, scenariotest.MinFailingInput)
	}
	if report.FaultsBefore != len(s.Faults) || report.FaultsAfter != 1 || report.Property != string(checker.PropExactlyOnce) {
		t.Errorf("report %+v", report)
	}
	if int64(report.Runs) != fake.Runs()-1 {
		t.Errorf("report says %d runs, the runner saw %d after the first", report.Runs, fake.Runs()-1)
	}
	if small.Verdict != scenarios.VerdictFail || small.Violations[0].Property != checker.PropExactlyOnce {
		t.Errorf("shrunk artifact records %s %v", small.Verdict, small.Violations)
	}
	// Shrinking goes on until a pass changes nothing: shrinking its result finds nothing more.
	again, _, err := scenarios.Shrink(fake, small, "test-build", scenarios.ShrinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Scenario, small.Scenario) {
		t.Errorf("a second shrink changed the case:\n%+v\nto\n%+v", small.Scenario, again.Scenario)
	}
	// The shrunk artifact is a valid artifact whose scenario carries its schedule.
	back, err := scenarios.ParseArtifact(scenarios.MarshalArtifact(small))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Scenario.Faults) != 1 || back.Scenario.Swarm != nil {
		t.Errorf("shrunk scenario has faults %v and swarm %v", back.Scenario.Faults, back.Scenario.Swarm)
	}
}

func TestShrinkWritesOutASwarm(t *testing.T) {
	s, err := scenarios.Lookup(scenarios.StandardName)
	if err != nil {
		t.Fatal(err)
	}
	fake := &scenariotest.Fake{Fails: func(p *scenarios.Plan) []checker.Property {
		if len(p.Faults.Entries) > 0 {
			return []checker.Property{checker.PropLiveness}
		}
		return nil
	}}
	var seed uint64
	for seed = 1; ; seed++ {
		if p, _ := fake.Plan(s, seed); len(p.Faults.Entries) > 1 {
			break
		}
	}
	small, report, err := scenarios.Shrink(fake, failingArtifact(t, fake, s, seed), "test-build", scenarios.ShrinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if report.KeptSwarm || small.Scenario.Swarm != nil || len(small.Scenario.Faults) != 1 {
		t.Errorf("swarm not written out and shrunk: %+v, faults %d", report, len(small.Scenario.Faults))
	}
	if report.InputAfter != 1 {
		t.Errorf("input %d, want 1: the planted failure does not need input", report.InputAfter)
	}
}

func TestShrinkRefusesWhatDoesNotReproduce(t *testing.T) {
	s, err := scenarios.Lookup("control-reorder-aligned")
	if err != nil {
		t.Fatal(err)
	}
	art := failingArtifact(t, &scenariotest.Fake{}, s, 1)
	fixed := &scenariotest.Fake{Fails: func(*scenarios.Plan) []checker.Property { return nil }}
	if _, _, err := scenarios.Shrink(fixed, art, "test-build", scenarios.ShrinkOptions{}); !errors.Is(err, scenarios.ErrNotReproduced) {
		t.Errorf("err = %v, want ErrNotReproduced", err)
	}
	art.Verdict, art.Violations = scenarios.VerdictPass, nil
	if _, _, err := scenarios.Shrink(fixed, art, "test-build", scenarios.ShrinkOptions{}); err == nil {
		t.Error("shrinking a passing artifact did not fail")
	}
}

func TestShrinkALimit(t *testing.T) {
	s, err := scenarios.Lookup("network-faults")
	if err != nil {
		t.Fatal(err)
	}
	fake := &scenariotest.Fake{Limit: func(p *scenarios.Plan) bool {
		return slices.ContainsFunc(p.Faults.Entries, func(e faults.Entry) bool { return e.Fault.Kind == faults.NetPartition })
	}}
	small, report, err := scenarios.Shrink(fake, failingArtifact(t, fake, s, 2), "test-build", scenarios.ShrinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if report.Property != scenarios.VerdictLimit || small.Verdict != scenarios.VerdictLimit || len(small.Schedule.Entries) != 1 {
		t.Errorf("report %+v, verdict %s, schedule %s", report, small.Verdict, small.Schedule)
	}
}

func TestExecuteTurnsAPanicIntoAFailure(t *testing.T) {
	s, err := scenarios.Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	fake := &scenariotest.Fake{Panic: func(*scenarios.Plan) bool { return true }}
	p, res, err := scenarios.Execute(fake, s, 4, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.VerdictFail || !res.Unexpected || res.Violations[0].Property != scenarios.PropertyPanic || res.Panic == "" {
		t.Errorf("result %+v", res)
	}
	if _, err := scenarios.ParseArtifact(scenarios.MarshalArtifact(scenarios.NewArtifact(p, res, "b"))); err != nil {
		t.Errorf("the artifact of a panic does not read back: %v", err)
	}
}
