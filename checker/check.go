package checker

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// Options select properties and bound the costly ones. The zero value checks the default
// properties for the reference (DefaultProperties) with default limits.
type Options struct {
	// Properties to check, run in AllProperties order whatever the order given. Nil: the
	// default set for the reference (an empty, non-nil list checks nothing).
	Properties []Property
	// SearchSteps bounds each linearizability search (durable-before-visible and
	// sink-visibility, with porcupine) in model steps. Zero: DefaultSearchSteps. A
	// history that needs more gives the verdict unknown, never pass, and the same on every
	// machine.
	SearchSteps int64
	// SearchTimeout is the wall-clock safety net of each linearizability search. Zero:
	// DefaultSearchTimeout. It should be generous: when it fires before the step budget runs
	// out, the verdict is unknown because of the machine, not the trace.
	SearchTimeout time.Duration
	// SinkVisibilityPicture and StoreHistoryPicture, when not nil, receive porcupine's
	// drawing (a self-contained HTML page) of a history without a linearization: what the
	// sink's readers saw (sink-visibility) and the completed-checkpoint store's history
	// (durable-before-visible). Nothing is written when the history is fine; Check opens no
	// file, so where a drawing goes is the caller's choice.
	SinkVisibilityPicture io.Writer
	StoreHistoryPicture   io.Writer
	// MaxViolations caps the violations kept per property; the rest are counted in
	// Result.Omitted. Zero: DefaultMaxViolations; negative: keep all.
	MaxViolations int
}

// DefaultSearchSteps is the step budget of a linearizability search per property when
// Options leaves it zero. A step is one try of one operation on the model; two million take
// about a third of a second and 50 MB on a current machine, on histories hard enough to need
// them. The histories of the built-in scenarios need a few dozen: sink visibility decides its
// usual segments, those with a single read, without porcupine.
const DefaultSearchSteps = 2_000_000

// DefaultSearchTimeout is the wall-clock safety net of a linearizability search per property
// when Options leaves it zero: far beyond what DefaultSearchSteps takes, so that it fires
// only on a machine that has all but stopped.
const DefaultSearchTimeout = time.Minute

// DefaultMaxViolations is the per-property cap when Options leaves it zero.
const DefaultMaxViolations = 50

// DefaultProperties returns the properties that apply to ref, in AllProperties order. It is
// the one place that chooses what a run is judged by: Check (Options.Properties nil), simrun
// check and every scenarios run use it. Well-formed always; then what ref.Promises lists;
// then determinism when ref has a hash, and expected-snapshot when ref expects snapshots. A reference that promises nothing in particular
// (Promises nil: no reference at all, or a reference file written before it had promises)
// gets every property, but exactly-once when ref promises only at-least-once (it would fail
// on the duplicates that guarantee allows): with exactly-once promised, or nothing, both
// output properties are judged, and the two verdicts together tell a loss from a duplicate.
// A property whose reference data is missing is judged all the same, and is unknown; only
// the properties that judge the job against a setting of its policy or a bound of their
// own (failure-accounting, trigger-pacing, checkpoint-timing, recovery-bound,
// alignment-timeout, abort-reach, state-release), and expected-snapshot without expected
// snapshots, are left out of that default when the reference does not give it, so that a
// reference written before they existed judges what it did then. failure-cause and
// failover-cause read which failures an engine reports of itself, which is the engine's
// own: they are judged only where promised.
func DefaultProperties(ref Reference) []Property {
	var props []Property
	for _, p := range AllProperties {
		var chosen bool
		switch {
		case p == PropWellFormed || p == PropContract:
			// Both read the trace alone, and no engine promises less than either.
			chosen = true
		case ref.Promises != nil && p == PropDeterminism:
			chosen = ref.TraceHash != ""
		case p == PropExpectedSnapshot:
			// Judged wherever the reference expects a snapshot, like determinism where it
			// has a hash, and wherever it is promised (unexercised without expectations).
			chosen = len(ref.Snapshots) > 0 || slices.Contains(ref.Promises, p)
		case ref.Promises != nil:
			chosen = slices.Contains(ref.Promises, p)
		case p == PropFailureAccounting:
			chosen = ref.Policy.TolerableFailures != nil
		case p == PropTriggerPacing:
			chosen = len(pacingMissing(ref.Policy)) == 0
		case p == PropCheckpointTiming:
			chosen = len(timingMissing(ref)) == 0
		case p == PropRecoveryBound:
			chosen = ref.Liveness.RecoveryMaxNanos > 0
		case p == PropAlignmentTimeout:
			chosen = ref.Policy.AlignmentTimeoutNanos > 0 && ref.Liveness.SwitchMaxNanos > 0
		case p == PropAbortReach:
			chosen = ref.Liveness.AbortReachMaxNanos > 0
		case p == PropStateRelease:
			chosen = ref.Policy.RetainedCheckpoints > 0
		case p == PropBarrierHandling:
			// A token workload's processes snapshot as Chandy-Lamport has them: no
			// triggers to answer, no cancel markers.
			chosen = !ref.tokenWorkload()
		case p == PropFailureCause || p == PropFailoverCause:
			// Which failures an engine reports of itself, and with what reason, is its own:
			// judged only where the reference promises it.
			chosen = false
		default:
			chosen = p != PropExactlyOnce || ref.Guarantee != GuaranteeAtLeastOnce
		}
		if chosen {
			props = append(props, p)
		}
	}
	return props
}

// Check runs the selected properties over events (a whole trace, in order) and returns one
// result per property. It is the single entry point for simrun and for tests; each property
// is also exported as its own function. Over a long trace the properties run concurrently
// (judgeConcurrently), each over what Check works out once for all: the kinds of the events
// (traceIndex) and the replay of the sinks.
func Check(events []trace.Event, ref Reference, opts Options) Report {
	selected := opts.Properties
	if selected == nil {
		selected = DefaultProperties(ref)
	}
	ix := newTraceIndex(events)
	owed := stoppedReference(ix, ref)
	ref = owed.ref
	j := &judging{events: events, ix: ix, ref: ref, owed: owed, sinks: newReplay(ix, ref), opts: opts,
		drawBoth: opts.StoreHistoryPicture != nil && opts.SinkVisibilityPicture != nil}
	var props []Property
	for _, p := range AllProperties {
		if slices.Contains(selected, p) {
			props = append(props, p)
		}
	}
	var report Report
	if len(events) >= concurrentEvents {
		report.Results = judgeConcurrently(props, j.judge, schedule{
			prepare: func() { j.sinks.output() },
			late:    func(p Property) bool { return readsReplay(p, ref) },
		})
	} else {
		report.Results = judgeInTurn(props, j.judge)
	}
	for _, p := range selected {
		if !slices.Contains(AllProperties, p) {
			// A misspelt property must not read as a pass.
			report.Results = append(report.Results, unknownResult(p, "no such property"))
		}
	}
	return report
}

// judging is what Check works out once for all the properties of one trace: the kinds of
// its events (traceIndex) and the replay of its sinks.
type judging struct {
	events []trace.Event
	ix     *traceIndex
	ref    Reference
	owed   owedOutput // ref's output as the trace owes it (a stopped job's is cut)
	sinks  *replay
	opts   Options
	// The two searches take turns when both draw: a caller may hand both the same writer
	// for their drawings, which must not be written from two goroutines at once.
	searching sync.Mutex
	drawBoth  bool
}

// judges maps each property to the function that judges it.
var judges = map[Property]func(j *judging) Result{
	PropWellFormed:              func(j *judging) Result { return WellFormed(j.events) },
	PropContract:                func(j *judging) Result { return Contract(j.events) },
	PropExactlyOnce:             func(j *judging) Result { return exactlyOnce(j.events, j.owed, j.sinks) },
	PropAtLeastOnce:             func(j *judging) Result { return atLeastOnce(j.events, j.owed, j.sinks) },
	PropConsistentCut:           func(j *judging) Result { return consistentCut(j.ix, j.ref) },
	PropExpectedSnapshot:        func(j *judging) Result { return ExpectedSnapshots(j.events, j.ref) },
	PropRestoreFidelity:         func(j *judging) Result { return restoreFidelity(j.ix) },
	PropListenerContract:        func(j *judging) Result { return listenerContract(j.ix, j.ref) },
	PropCheckpointOutcome:       func(j *judging) Result { return checkpointOutcome(j.ix) },
	PropFailureAccounting:       func(j *judging) Result { return failureAccounting(j.ix, j.ref) },
	PropNoTriggerInFailover:     func(j *judging) Result { return noTriggerInFailover(j.ix) },
	PropNoPendingAcrossFailover: func(j *judging) Result { return noPendingAcrossFailover(j.ix) },
	PropNoTriggerAfterFinish:    func(j *judging) Result { return noTriggerAfterFinish(j.ix) },
	PropTriggerPacing:           func(j *judging) Result { return triggerPacing(j.ix, j.ref) },
	PropCheckpointTiming:        func(j *judging) Result { return checkpointTiming(j.ix, j.ref) },
	PropRecoveryBound:           func(j *judging) Result { return recoveryBound(j.ix, j.ref) },
	PropAlignmentTimeout:        func(j *judging) Result { return alignmentTimeout(j.ix, j.ref) },
	PropAbortReach:              func(j *judging) Result { return abortReach(j.ix, j.ref) },
	PropBarrierHandling:         func(j *judging) Result { return barrierHandling(j.ix) },
	PropFailureCause:            func(j *judging) Result { return failureCause(j.ix) },
	PropFailoverCause:           func(j *judging) Result { return failoverCause(j.ix) },
	PropStateRelease:            func(j *judging) Result { return stateRelease(j.ix, j.ref) },
	PropDurableVisible: func(j *judging) Result {
		defer j.takeTurn()()
		return DurableBeforeVisible(j.events, j.search(j.opts.StoreHistoryPicture))
	},
	PropSinkVisibility: func(j *judging) Result {
		defer j.takeTurn()()
		return SinkVisibility(j.events, j.search(j.opts.SinkVisibilityPicture))
	},
	PropLiveness:    func(j *judging) Result { return liveness(j.ix, j.ref, j.sinks) },
	PropDeterminism: func(j *judging) Result { return Determinism(j.events, j.ref) },
}

// judge returns p's result, its violations capped.
func (j *judging) judge(p Property) Result {
	f := judges[p]
	if f == nil {
		panic("checker: property without a check: " + string(p))
	}
	return capViolations(f(j), j.opts.MaxViolations)
}

// takeTurn waits for the other search when both draw, and returns what ends the turn.
func (j *judging) takeTurn() (done func()) {
	if !j.drawBoth {
		return func() {}
	}
	j.searching.Lock()
	return j.searching.Unlock
}

func (j *judging) search(picture io.Writer) SearchOptions {
	return SearchOptions{Steps: j.opts.SearchSteps, Timeout: j.opts.SearchTimeout, Picture: picture}
}

// readsReplay reports whether Check's judge of p reads the replay of the sinks against ref:
// the output properties without an expected output are unknown at once, and liveness reads
// it only to find the records a bounded job left uncommitted.
func readsReplay(p Property, ref Reference) bool {
	if ref.Output == nil {
		return false
	}
	return p == PropExactlyOnce || p == PropAtLeastOnce || p == PropLiveness && len(ref.Liveness.FinishTasks) > 0
}

// ParseProperty returns the property named name, for command lines and scenario files.
func ParseProperty(name string) (Property, error) {
	p := Property(name)
	if !slices.Contains(AllProperties, p) {
		return "", fmt.Errorf("checker: unknown property %q", name)
	}
	return p, nil
}

func capViolations(res Result, limit int) Result {
	if limit == 0 {
		limit = DefaultMaxViolations
	}
	if limit > 0 && len(res.Violations) > limit {
		res.Omitted += len(res.Violations) - limit
		res.Violations = res.Violations[:limit:limit]
	}
	return res
}
