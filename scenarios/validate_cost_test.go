package scenarios

import (
	"strings"
	"testing"
	"time"
)

// costScenario is a valid pass-through pipeline whose input size the tests change: the
// shape of a file that once grew to gigabytes in silence (parallelism 1024, a million
// records at 10ms each, in a run that ends at 9.75s).
func costScenario(parallelism, records int, interval Duration) *Scenario {
	s := &Scenario{
		Name:     "cost",
		Mode:     ModeAligned,
		Topology: Topology{Kind: TopologyPipeline, Parallelism: parallelism, Stages: 2},
		Workload: Workload{Kind: WorkloadPassThrough, Records: records, RecordInterval: interval},
		Sink:     &Sink{Kind: SinkIdempotent},
		Expect:   Expect{Verdict: VerdictPass},
	}
	s.applyDefaults()
	return s
}

func TestValidateRefusesInputLongerThanTheRun(t *testing.T) {
	s := costScenario(1024, 1_000_000, Duration(10*time.Millisecond))
	err := s.Validate("scenario")
	if err == nil {
		t.Fatal("a million records at 10ms each in a 9.75s run validated")
	}
	for _, want := range []string{"scenario.workload.records:", "one every 10ms", "arrive until 2h46m39.99s", "the run ends at 9.75s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
}

func TestValidateAcceptsInputThatEndsBeforeTheRun(t *testing.T) {
	// 975 records: the last arrives at 9.74s, just before the end at 9.75s.
	if err := costScenario(4, 975, Duration(10*time.Millisecond)).Validate("scenario"); err != nil {
		t.Fatal(err)
	}
	if err := costScenario(4, 976, Duration(10*time.Millisecond)).Validate("scenario"); err == nil {
		t.Fatal("976 records at 10ms, the last at 9.75s when the run ends, validated")
	}
}

func TestValidateTimesInputAtTheEngineRate(t *testing.T) {
	// The engine reads whole records a second: an interval of 3s reads one a second, so 9
	// records end at 8s, inside the run, although 9 times 3s is not.
	if err := costScenario(1, 9, Duration(3*time.Second)).Validate("scenario"); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRefusesAReferenceTooLargeForOneRun(t *testing.T) {
	// 1024 subtasks of 1000 records at 1ms fit the run's time, but not its reference.
	err := costScenario(1024, 1000, Duration(time.Millisecond)).Validate("scenario")
	if err == nil || !strings.Contains(err.Error(), "make 1024000 in all") {
		t.Fatalf("err = %v, want the input of every source refused", err)
	}
	if err := costScenario(1000, 1000, Duration(time.Millisecond)).Validate("scenario"); err != nil {
		t.Fatalf("a million records in all: %v", err)
	}
}

func TestValidateRefusesTransfersLongerThanTheRun(t *testing.T) {
	s := &Scenario{
		Name:     "cost-tokens",
		Mode:     ModeChandyLamport,
		Topology: Topology{Kind: TopologyCycle, Processes: 3},
		Workload: Workload{Kind: WorkloadTokens, Transfers: 1000, RecordInterval: Duration(10 * time.Millisecond)},
		Expect:   Expect{Verdict: VerdictPass},
	}
	s.applyDefaults()
	err := s.Validate("scenario")
	if err == nil || !strings.Contains(err.Error(), "scenario.workload.transfers: 1000 transfers a process") {
		t.Fatalf("err = %v, want 1000 transfers at 10ms in a 9.75s run refused", err)
	}
	s.Workload.Transfers = 900
	if err := s.Validate("scenario"); err != nil {
		t.Fatal(err)
	}
}

// TestBuiltinScenariosFitTheirRuns: the catalogue never makes input longer than the run on
// purpose, so the bound refuses none of it (the generator's test is
// TestGeneratedScenariosFitTheirRuns).
func TestBuiltinScenariosFitTheirRuns(t *testing.T) {
	for _, s := range Builtins() {
		if err := s.Validate("scenario"); err != nil {
			t.Errorf("built-in %s: %v", s.Name, err)
		}
	}
}
