package scenarios_test

import (
	"fmt"
	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// A go test suite over seeds: run a built-in scenario on each of its default seeds and fail
// on any verdict its scenario does not expect. (In a test, t.Errorf where this prints.)
func Example_suiteOverSeeds() {
	s, err := scenarios.Lookup("pipeline-calm")
	if err != nil {
		panic(err)
	}
	sim := scenarios.NewSimulation()
	for seed := s.Seeds.First; seed <= s.Seeds.Last; seed++ {
		_, res, err := scenarios.Execute(sim, s, seed, scenarios.RunOptions{})
		if err != nil {
			panic(err)
		}
		if res.Unexpected {
			fmt.Printf("seed %d: %s: %s\n", seed, res.Verdict, res.Why)
		}
	}
	fmt.Println("every seed as expected")
	// Output: every seed as expected
}

// Asking whether a run exercised a property: a calm run restores nothing, so restore-fidelity
// has nothing to judge, while a run with a crash restores its tasks.
func Example_exercised() {
	sim := scenarios.NewSimulation()
	for _, name := range []string{"pipeline-calm", "split-source"} {
		s, err := scenarios.Lookup(name)
		if err != nil {
			panic(err)
		}
		_, res, err := scenarios.Execute(sim, s, 1, scenarios.RunOptions{})
		if err != nil {
			panic(err)
		}
		verdict, _ := res.VerdictOf(checker.PropRestoreFidelity)
		fmt.Printf("%s: restores exercised: %v (%s)\n", name, res.Exercised(checker.PropRestoreFidelity), verdict)
	}
	// Output:
	// pipeline-calm: restores exercised: false (unexercised)
	// split-source: restores exercised: true (pass)
}

// A scenario written in Go: Complete applies the defaults and validates it, which Execute
// needs (a scenario from Parse or Lookup is complete already). A negative control expects a
// property to fail; the run's verdict is then fail, as expected.
func Example_expectedFailure() {
	s, err := scenarios.Lookup("control-lost-state")
	if err != nil {
		panic(err)
	}
	mine := s.Clone()
	mine.Name = "my-lost-state"
	if err := mine.Complete("mine"); err != nil {
		panic(err)
	}
	_, res, err := scenarios.Execute(scenarios.NewSimulation(), mine, 1, scenarios.RunOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.ExpectedProperty, "unexpected:", res.Unexpected)
	// Output: fail restore-fidelity unexpected: false
}

// A property over generated scenarios: Generate draws a whole scenario (mode, topology,
// workload, settings and faults) from a seed, and the correct engine must pass every one.
// With pgregory.net/rapid, draw the scenario with Drawn inside rapid.Check, so that a
// failure shrinks by the scenario's structure.
func Example_generatedScenarios() {
	sim := scenarios.NewSimulation()
	for seed := uint64(1); seed <= 5; seed++ {
		s := generate.Seed(seed)
		_, res, err := scenarios.Execute(sim, s, seed, scenarios.RunOptions{})
		if err != nil {
			panic(err)
		}
		if res.Unexpected {
			fmt.Printf("seed %d (%s): %s: %s\n", seed, generate.Summary(s), res.Verdict, res.Why)
		}
	}
	fmt.Println("five generated scenarios pass")
	// Output: five generated scenarios pass
}

// A fault schedule written in Go: scenarios and faults share one duration type, so the
// times and windows read as the file's do.
func Example_scheduleInGo() {
	s, err := scenarios.Lookup("pipeline-calm")
	if err != nil {
		panic(err)
	}
	s.Name, s.Faults = "pipeline-partitioned", []faults.Entry{{
		Trigger: faults.At(scenarios.Millis(50)),
		Fault:   faults.Fault{Kind: faults.NetPartition, From: "coordinator", To: "sink-0", Window: scenarios.Millis(100)},
	}}
	if err := s.Complete(""); err != nil {
		panic(err)
	}
	_, res, err := scenarios.Execute(scenarios.NewSimulation(), s, 1, scenarios.RunOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Faults[0].Fault, "->", res.Verdict)
	// Output: net.partition from=coordinator to=sink-0 window=100ms -> pass
}
