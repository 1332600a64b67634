package checker

import (
	"math/rand/v2"
	"slices"
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

// onePassProperties returns the properties that judge a trace in one pass (checker/doc.go, "Cost"):
// all but the two that search for a linearization with porcupine.
func onePassProperties() []Property {
	return slices.DeleteFunc(slices.Clone(AllProperties), func(p Property) bool {
		return p == PropDurableVisible || p == PropSinkVisibility
	})
}

// benchReference is the large trace's reference with a bound for every property that judges
// one, loose enough that the synthetic run keeps them, so that each does its whole pass
// rather than returning unknown for want of a bound.
func benchReference(ref Reference) Reference {
	const loose = int64(1) << 50
	ref.Liveness.RecoveryMaxNanos = loose
	ref.Liveness.AbortReachMaxNanos = loose
	ref.Liveness.SwitchMaxNanos = loose
	ref.Policy.AlignmentTimeoutNanos = loose
	// Any pace and any number in flight, and any expiry after the trigger.
	ref.Policy.IntervalNanos, ref.Policy.MinPauseNanos = Nanos(0), Nanos(0)
	ref.Policy.MaxConcurrent, ref.Policy.Mode = 1<<20, "aligned"
	ref.Policy.TimeoutNanos, ref.Liveness.ReactionMaxNanos = 1, loose
	return ref
}

func benchmarkCheck(b *testing.B, props []Property) {
	events, ref := largeTrace()
	ref = benchReference(ref)
	b.ResetTimer()
	for b.Loop() {
		// Some properties alone are unknown or unexercised here (failure-cause: the synthetic
		// run has no task failing by itself; well-formed alone judges nothing), so only a
		// failure is one.
		if report := Check(events, ref, Options{Properties: props}); report.Verdict() == VerdictFail {
			b.Fatalf("the synthetic run should pass:\n%s", report)
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(events)), "events")
}

// BenchmarkCheckLinear checks every one-pass property over the large trace.
func BenchmarkCheckLinear(b *testing.B) { benchmarkCheck(b, onePassProperties()) }

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
