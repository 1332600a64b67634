package scenarios

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// operationFaultRun runs a small keyed job into a sink of kind sink under faults, and returns
// its trace's events: the run must pass, since every fault given is in model.
func operationFaultRun(t *testing.T, sink string, entries ...faults.Entry) []map[string]any {
	t.Helper()
	s := &Scenario{
		Name:     "operation-faults",
		Mode:     ModeAligned,
		Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
		Workload: Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 8},
		Sink:     &Sink{Kind: sink},
		Faults:   entries,
		Expect:   expectPass,
	}
	if err := s.Complete("test"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, res, err := Execute(NewSimulation(), s, 1, RunOptions{Trace: &out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unexpected {
		t.Fatalf("%s sink: %s: %s %v", sink, res.Verdict, res.Why, res.Violations)
	}
	var events []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return events
}

// crashReasons returns the reasons of the task failures in events.
func crashReasons(events []map[string]any) []string {
	var reasons []string
	for _, e := range events {
		if e["kind"] == trace.KindTaskCrash && e["reason"] != nil {
			reasons = append(reasons, e["reason"].(string))
		}
	}
	return reasons
}

func anyContains(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// A sink write the external store refuses fails the sink's task, of every sink kind; one
// lost on the way is found by the counts the sink checks (a pre-commit's, a confirmation's)
// and fails the task too. Either way the job restores and writes again, and the run passes.
func TestSinkWriteFaultsFailTheSink(t *testing.T) {
	for _, sink := range SinkKinds {
		refused := operationFaultRun(t, sink,
			at(Millis(300), faults.Fault{Kind: faults.ExternalWriteFail, Probability: 1, Window: Millis(100)}))
		if reasons := crashReasons(refused); !anyContains(reasons, "write refused") {
			t.Errorf("%s sink: no task failed on a refused write; failures: %q", sink, reasons)
		}
		lost := operationFaultRun(t, sink,
			at(Millis(300), faults.Fault{Kind: faults.ExternalWriteLost, Probability: 1, Window: Millis(100)}))
		if reasons := crashReasons(lost); !anyContains(reasons, "records lost on the way") {
			t.Errorf("%s sink: no task failed on lost writes; failures: %q", sink, reasons)
		}
	}
}

// A coordinator that recovers while one copy of the completed-checkpoint store cannot be
// read retries until it can, and never takes the other copy alone: that one may be the
// older, behind output a sink committed (durable-before-visible would say so).
func TestRecoveryRetriesAnUnreadableCopy(t *testing.T) {
	window := Millis(400)
	events := operationFaultRun(t, SinkTwoPhaseCommit,
		at(Millis(500), faults.Fault{Kind: faults.StorageReadFail, Store: StoreMetadata, Key: "completed.1",
			Probability: 1, Window: window}),
		at(Millis(600), faults.Fault{Kind: faults.CrashCoordinator}))
	recovered := false
	for _, e := range events {
		if e["kind"] == trace.KindCoordinatorRecover {
			recovered = true
			if at := Duration(e["t"].(float64)); at < Millis(500)+window {
				t.Errorf("the coordinator recovered at %s, while a copy of its store was unreadable", at)
			}
		}
	}
	if !recovered {
		t.Error("the coordinator never recovered")
	}
}
