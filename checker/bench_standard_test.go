package checker_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// standardRun is the trace and reference of the standard scenario's seed 1, as simrun run
// -scenario standard -seed 1 -trace FILE -reference-out REF writes them: a realistic mix of
// events (two thirds of them barriers, snapshots and notifications, a third sink.writes
// batches of a few records each) rather than the synthetic run's million. The benchmark,
// in the external test package, may import scenarios; checker itself may not.
var standardRun = sync.OnceValues(func() ([]trace.Event, checker.Reference) {
	s, err := scenarios.Lookup("standard")
	if err != nil {
		panic(err)
	}
	var lines bytes.Buffer
	_, res, err := scenarios.Execute(scenarios.NewSimulation(), s, 1, scenarios.RunOptions{Trace: &lines})
	if err != nil {
		panic(err)
	}
	ref, err := scenarios.ReferenceFor(s)
	if err != nil {
		panic(err)
	}
	ref.TraceHash = res.TraceHash
	_, events, err := trace.ReadAll(&lines)
	if err != nil {
		panic(err)
	}
	return events, ref
})

// BenchmarkCheckStandard checks every one-pass property (checker/doc.go, "Cost") over the
// standard scenario's trace, each with the bounds its reference gives.
func BenchmarkCheckStandard(b *testing.B) {
	events, ref := standardRun()
	var props []checker.Property
	for _, p := range checker.AllProperties {
		if p != checker.PropDurableVisible && p != checker.PropSinkVisibility {
			props = append(props, p)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if report := checker.Check(events, ref, checker.Options{Properties: props}); report.Verdict() == checker.VerdictFail {
			b.Fatalf("the standard run should pass:\n%s", report)
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(events)), "events")
}
