package checker

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// largeRun is a synthetic run of about a million events: four sources, four sinks, a
// checkpoint every hundred steps or so, and the fault phase's failovers.
var largeRun = genParams{
	sources: 4, sinks: 4, recordsPerSource: 160_000,
	pCheckpoint: 0.01, pAbort: 0.1, pDropNotify: 0.1, pFailover: 0.0005, pCoordCrash: 0.0005, pRead: 0.05,
	healFraction: 0.8,
}

var largeTrace = sync.OnceValues(func() ([]trace.Event, Reference) {
	return generate(rand.New(rand.NewPCG(1, 2)), largeRun)
})

// linearProperties are the properties that run in one pass over the trace.
var linearProperties = []Property{PropWellFormed, PropExactlyOnce, PropConsistentCut, PropRestoreFidelity,
	PropListenerContract, PropLiveness, PropDeterminism}

func benchmarkCheck(b *testing.B, props []Property) {
	events, ref := largeTrace()
	b.ResetTimer()
	for b.Loop() {
		report := Check(events, ref, Options{Properties: props})
		if report.Verdict() != VerdictPass {
			b.Fatalf("the synthetic run should pass:\n%s", report)
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(events)), "events")
}

// BenchmarkCheckLinear checks every one-pass property over the large trace.
func BenchmarkCheckLinear(b *testing.B) { benchmarkCheck(b, linearProperties) }

// BenchmarkCheckAll adds the porcupine properties.
func BenchmarkCheckAll(b *testing.B) { benchmarkCheck(b, AllProperties[:len(AllProperties)]) }

// BenchmarkProperty measures each property alone.
func BenchmarkProperty(b *testing.B) {
	for _, p := range AllProperties {
		if p == PropAtLeastOnce {
			continue // the reference promises exactly-once; at-least-once is its cheaper half
		}
		b.Run(string(p), func(b *testing.B) { benchmarkCheck(b, []Property{p}) })
	}
}
