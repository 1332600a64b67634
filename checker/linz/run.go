package linz

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// Pending is the return position of an operation that never returned (its caller crashed):
// porcupine may then linearize it anywhere after its invocation, or after everything, which
// is the same as never.
const Pending = math.MaxInt64

// Limits bound one check. Steps is the real bound and Timeout only a safety net.
type Limits struct {
	// Steps is how many model steps porcupine may try. Its search visits histories in an
	// order fixed by the history alone, so the step at which a search runs out is the same on
	// every machine and at any load: running out is a verdict of the trace, not of the clock.
	// Must be positive.
	Steps int64
	// Timeout is the wall-clock safety net for a search whose steps are unexpectedly slow.
	// It should be far longer than Steps takes; when it fires anyway, the outcome is Unknown
	// and depends on the machine, the one exception to checks being pure functions of the
	// trace. Must be positive, since porcupine reads zero as no limit.
	Timeout time.Duration
}

// Outcome is what a check decided and what it took.
type Outcome struct {
	Result porcupine.CheckResult
	// Steps counts the model steps tried, up to Limits.Steps.
	Steps int64
	// OutOfSteps is set when the search needed more than Limits.Steps: Result is Unknown.
	OutOfSteps bool
	// TimedOut is set when the wall-clock safety net fired first: Result is Unknown.
	TimedOut bool
}

// Run checks history against model within limits. When the outcome is Illegal and picture
// is not nil, it writes porcupine's visualization (a self-contained HTML page) to picture,
// each client's row starting with its name in clients (by ClientId; porcupine numbers its
// rows, and a number says nothing of which task or incarnation a row is); the error is
// about that writer only.
//
// The model must not partition the history: porcupine searches partitions in parallel, and
// the steps of parallel searches are not counted in a fixed order.
func Run(model porcupine.Model, history []porcupine.Operation, limits Limits, picture io.Writer, clients ...string) (Outcome, error) {
	if limits.Steps <= 0 || limits.Timeout <= 0 {
		panic(fmt.Sprintf("linz: limits %+v must be positive", limits))
	}
	if model.Partition != nil || model.PartitionEvent != nil {
		panic("linz: a partitioned model would count its steps in no fixed order")
	}
	counted, steps := countSteps(model, limits.Steps)
	var out Outcome
	var info porcupine.LinearizationInfo
	if picture == nil {
		out.Result = porcupine.CheckOperationsTimeout(counted, history, limits.Timeout)
	} else {
		out.Result, info = porcupine.CheckOperationsVerbose(counted, history, limits.Timeout)
	}
	taken := steps.Load()
	out.Steps = min(taken, limits.Steps)
	switch {
	case taken > limits.Steps:
		out.Result, out.OutOfSteps = porcupine.Unknown, true
	case out.Result == porcupine.Unknown:
		out.TimedOut = true
	}
	if out.Result != porcupine.Illegal || picture == nil {
		return out, nil
	}
	info.AddAnnotations(clientNames(history, clients))
	// The visualization replays steps with the model itself, not the counted one.
	if err := porcupine.Visualize(model, info, picture); err != nil {
		return out, fmt.Errorf("linz: writing visualization: %w", err)
	}
	return out, nil
}

// countSteps returns model with a Step that counts its calls. Past budget it accepts every
// step without looking: the search then ends in one pass over what is left, with an answer
// Run discards, instead of backtracking through every refusal. The count is atomic because
// after a timeout porcupine returns while its search goroutine is still winding down.
func countSteps(model porcupine.Model, budget int64) (porcupine.Model, *atomic.Int64) {
	steps := new(atomic.Int64)
	step := model.Step
	if step == nil {
		panic("linz: the model has no Step")
	}
	model.StepContext = nil
	model.Step = func(state, input, output any) (bool, any) {
		if steps.Add(1) > budget {
			return true, state
		}
		return step(state, input, output)
	}
	return model, steps
}

// clientNames labels each named client's row: an annotation at the row's start, before
// the history's first call, whose text is the client's name.
func clientNames(history []porcupine.Operation, clients []string) []porcupine.Annotation {
	if len(history) == 0 {
		return nil
	}
	first := history[0].Call
	for _, op := range history {
		first = min(first, op.Call)
	}
	var out []porcupine.Annotation
	for id, name := range clients {
		if name != "" {
			out = append(out, porcupine.Annotation{ClientId: id, Start: first - 1, End: first - 1,
				Description: name, Details: "client " + strconv.Itoa(id) + " is " + name, BackgroundColor: "#e8ecf4"})
		}
	}
	return out
}
