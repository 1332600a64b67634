package scenarios

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// Runner runs one scenario on one seed. The glue in this package (Simulation) is the real
// one; tests of the command line and of shrinking use fakes, which is why it is an interface.
type Runner interface {
	// Plan derives what the seed decides before the run starts (the fault schedule a swarm
	// draws, jitter, ...), so that it can be printed first. An error means the scenario cannot
	// be assembled: bad input, not a failed run.
	Plan(s *Scenario, seed uint64) (*Plan, error)
	// Run executes a plan and judges it.
	Run(p *Plan, opts RunOptions) (*Result, error)
}

// Plan is a scenario, a seed and everything derived from them before the run starts.
type Plan struct {
	Scenario *Scenario
	Seed     uint64
	// Faults is the fault schedule the run will inject: the scenario's own, or what its swarm
	// drew for this seed.
	Faults faults.Schedule
	// Options are other derived settings, in a fixed order, for printing.
	Options []Option
	// Properties are the properties the run will check, in Properties order.
	Properties []checker.Property
	// derived is what Simulation.Plan derived to check the plan, for its Run.
	derived *derivation
}

// Option is one derived setting of a plan.
type Option struct {
	Name  string
	Value string
}

// RunOptions are per-run choices that do not change what happens.
type RunOptions struct {
	// Trace, when not nil, receives the trace as JSON Lines.
	Trace io.Writer
	// Build names the build that runs, for the trace header.
	Build string
	// StoreHistoryPicture and SinkVisibilityPicture, when not nil, receive porcupine's
	// picture (an HTML page) of the completed-checkpoint store's history
	// (durable-before-visible) or of what the sink's readers saw (sink-visibility) when that
	// history is not linearizable (checker.Options). Nothing is written to a writer whose
	// history is fine.
	StoreHistoryPicture, SinkVisibilityPicture io.Writer
	// Events, when not nil, lends the run an array for the events of its trace, which a run
	// keeps for its checkers: the run keeps them from the array's start
	// (trace.Recorder.KeepEventsIn) and leaves the slice, grown if it had to be, in *Events
	// for the next run. A sweep's worker lends one to each of its runs in turn, which spares
	// allocating every run's; nothing a run returns points into it.
	Events *[]trace.Event
	// Watch, when not nil, sees every event of the trace as it is recorded
	// (trace.Recorder.Watch), on the run's goroutine: what a progress report reads. It must
	// neither change the event nor keep the pointer, and it sees the event after the
	// run's own watchers, so that it cannot change what the run does.
	Watch func(*trace.Event)
	// maxInstantEvents overrides the kernel's bound on events at one instant
	// (sim.Config.MaxInstantEvents), for the tests of time-advances.
	maxInstantEvents uint64
}

// Result is what one run showed. Its JSON form is the line `simrun run -json` prints.
type Result struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Verdict  string `json:"verdict"`
	// Expected is the scenario's expected verdict; ExpectedProperty the property a negative
	// control expects to fail.
	Expected         string           `json:"expected"`
	ExpectedProperty checker.Property `json:"expected_property,omitempty"`
	Unexpected       bool             `json:"unexpected"`
	Why              string           `json:"why,omitempty"` // what was unexpected
	// Violations are the checkers' own (checker.Violation, one text form everywhere), plus
	// the invariant or panic violation of a run that panicked (PropertyInvariant,
	// PropertyPanic).
	Violations []checker.Violation `json:"violations"`
	// Omitted counts, per property, the violations found beyond the ones kept (at most
	// MaxViolations of each property are kept, so that one broken run cannot flood a
	// report): the violations listed are the first, never all, when a count is here.
	Omitted map[checker.Property]int `json:"omitted,omitempty"`
	// Diffs holds, per property, the diff its checker drew of what went wrong (exactly-once:
	// expected against committed counts of the first differing records), for a person to
	// read under the violations. It is not part of the JSON form or of artifacts: go-cmp's
	// diffs are not byte-stable, and the violations say the same.
	Diffs map[checker.Property]string `json:"-"`
	// Unexercised lists the properties the run gave no occasion to judge, each with what
	// never happened ("restore-fidelity (no task.restore from a checkpoint: ...)"): they are
	// not passes, and the verdict claims nothing for them.
	Unexercised []string `json:"unexercised,omitempty"`
	// Verdicts holds each checked property's own verdict (pass, fail, unknown, unexercised),
	// for a test to ask of one without reading sentences (Exercised, VerdictOf). It is not
	// part of the JSON form: a result read back from an artifact has none.
	Verdicts     map[checker.Property]checker.Verdict `json:"-"`
	TraceHash    string                               `json:"trace_hash"`
	Events       uint64                               `json:"events"`
	VirtualNanos int64                                `json:"virtual_ns"`
	WallNanos    int64                                `json:"wall_ns"`
	// LimitReason says which limit ended a run whose verdict is limit.
	LimitReason string `json:"limit_reason,omitempty"`
	// Undecided lists, for a run whose verdict is unknown, each property the checkers could
	// not decide with why ("sink-visibility (no sink.read: ...)"), or that no property had
	// anything to judge.
	Undecided            []string `json:"undecided,omitempty"`
	CheckpointsCompleted int      `json:"checkpoints_completed"`
	CheckpointsAborted   int      `json:"checkpoints_aborted"`
	// Faults is the schedule the run injected from (Plan.Faults); FaultsInjected counts the
	// injections, which differ when a trigger never fired or fired several times.
	Faults         []faults.Entry `json:"faults"`
	FaultsInjected int            `json:"faults_injected"`
	// FaultsUnfired lists, by index into Faults in ascending order, the entries whose fault
	// was never injected (faults.Injector.Unfired says what fired means): an nth event that
	// never came, a chance that never came up. A run that passed with one here passed
	// without that fault. Expect.EveryFaultFires makes such a run unexpected; UnfiredFaults
	// describes them.
	FaultsUnfired []int `json:"faults_unfired"`
	// RecoveryNanos holds, per recovery, the virtual time from the failure to the first
	// checkpoint completed after it; CheckpointNanos, per completed checkpoint, the time from
	// trigger to completion. Sweep summaries take their medians and 99th percentiles.
	RecoveryNanos   []int64 `json:"recovery_ns"`
	CheckpointNanos []int64 `json:"checkpoint_ns"`
	// Panic holds the message and stack of a panic inside the run (a broken invariant, or another panic).
	Panic string `json:"panic,omitempty"`
	// Artifact is the file a failing run was saved to, when it was.
	Artifact string `json:"artifact,omitempty"`
}

// Judge sets r.Expected, r.Unexpected and r.Why from the scenario's expectation. A limit or
// an unknown verdict is always unexpected; a negative control must fail, and with the
// property it names.
func (r *Result) Judge(e Expect) {
	r.Expected = e.Verdict
	r.ExpectedProperty = e.Property
	r.Unexpected, r.Why = false, ""
	switch {
	case r.Verdict == VerdictLimit:
		r.Unexpected, r.Why = true, "hit a limit"
		if r.LimitReason != "" {
			r.Why += ": " + r.LimitReason
		}
	case r.Verdict == VerdictUnknown:
		r.Unexpected, r.Why = true, "undecided"
		if len(r.Undecided) > 0 {
			r.Why += ": " + strings.Join(r.Undecided, "; ")
		}
	case e.Verdict == VerdictPass && r.Verdict == VerdictFail:
		r.Unexpected, r.Why = true, "violated "+joinProperties(r.ViolatedProperties())
	case e.Verdict == VerdictFail && r.Verdict == VerdictPass:
		r.Unexpected, r.Why = true, "passed, but "+string(e.Property)+" was expected to fail"
	case e.Verdict == VerdictFail && !slices.Contains(r.ViolatedProperties(), e.Property):
		r.Unexpected, r.Why = true, "violated "+joinProperties(r.ViolatedProperties())+", but not the expected "+string(e.Property)
	}
	r.judgeUnfired(e)
}

// ViolatedProperties returns the distinct properties of r's violations, in Properties order
// (unknown names last, sorted).
func (r *Result) ViolatedProperties() []checker.Property {
	var names []checker.Property
	for _, v := range r.Violations {
		if !slices.Contains(names, v.Property) {
			names = append(names, v.Property)
		}
	}
	slices.SortFunc(names, func(a, b checker.Property) int {
		ia, ib := propertyRank(a), propertyRank(b)
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(string(a), string(b))
	})
	return names
}

func joinProperties(props []checker.Property) string {
	return strings.Join(propertyStrings(props), ", ")
}

func propertyStrings(props []checker.Property) []string {
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = string(p)
	}
	return names
}

func propertyRank(name checker.Property) int {
	if i := slices.Index(Properties, name); i >= 0 {
		return i
	}
	return len(Properties)
}

// Failed reports whether the run did not pass (fail, unknown or limit).
func (r *Result) Failed() bool { return r.Verdict != VerdictPass }

// Record folds the checkers' report on a run into r, whose verdict is pass or fail so far:
// a failed property fails the run, with its violations, how many it left out and its diff;
// one the checkers could not decide (porcupine ran out of its budget, evidence missing from
// the trace) makes the verdict unknown unless another failed, since a run not fully judged is
// never a pass; a property the run gave no occasion to judge is listed as unexercised.
func (r *Result) Record(report checker.Report) {
	var undecided []string
	for _, result := range report.Results {
		if r.Verdicts == nil {
			r.Verdicts = map[checker.Property]checker.Verdict{}
		}
		r.Verdicts[result.Property] = result.Verdict
		switch result.Verdict {
		case checker.VerdictFail:
			r.fail(result.Property, result.Violations, result.Omitted)
			if result.Diff != "" {
				if r.Diffs == nil {
					r.Diffs = map[checker.Property]string{}
				}
				r.Diffs[result.Property] = result.Diff
			}
		case checker.VerdictUnknown:
			undecided = append(undecided, fmt.Sprintf("%s (%s)", result.Property, result.Note))
		case checker.VerdictUnexercised:
			r.Unexercised = append(r.Unexercised, fmt.Sprintf("%s (%s)", result.Property, result.Note))
		}
	}
	if r.Verdict == VerdictPass && report.Verdict() == checker.VerdictUnknown && len(undecided) == 0 {
		undecided = append(undecided, "no property had anything to judge")
	}
	if r.Verdict == VerdictPass && len(undecided) > 0 {
		r.Verdict, r.Undecided = VerdictUnknown, undecided
	}
}

// VerdictOf returns property p's own verdict in the run, and whether p was checked.
func (r *Result) VerdictOf(p checker.Property) (checker.Verdict, bool) {
	v, ok := r.Verdicts[p]
	return v, ok
}

// Exercised reports whether the run gave property p something to judge: p was checked and
// its verdict is not unexercised ("did a restore happen" is Exercised(PropRestoreFidelity)).
func (r *Result) Exercised(p checker.Property) bool {
	v, ok := r.Verdicts[p]
	return ok && v != checker.VerdictUnexercised
}

// fail fails r with violations of property p, omitted more beyond them.
func (r *Result) fail(p checker.Property, violations []checker.Violation, omitted int) {
	r.Verdict = VerdictFail
	r.Violations = append(r.Violations, violations...)
	if omitted > 0 {
		if r.Omitted == nil {
			r.Omitted = map[checker.Property]int{}
		}
		r.Omitted[p] = omitted
	}
}
