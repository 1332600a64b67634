package linz

import (
	"fmt"
	"math"
	"time"

	"github.com/anishathalye/porcupine"
)

// Pending is the return position of an operation that never returned (its caller crashed):
// porcupine may then linearize it anywhere after its invocation, or after everything, which
// is the same as never.
const Pending = math.MaxInt64

// Run checks history against model within timeout (wall clock; it must be positive, since
// porcupine reads zero as no limit). When the outcome is Illegal and htmlPath is set, it
// writes porcupine's visualization there; the error is about that file only.
//
// Run is deterministic except at the budget's edge: a slow machine can turn Ok or Illegal into
// Unknown, never one into the other.
func Run(model porcupine.Model, history []porcupine.Operation, timeout time.Duration, htmlPath string) (porcupine.CheckResult, error) {
	if timeout <= 0 {
		panic(fmt.Sprintf("linz: timeout %v must be positive", timeout))
	}
	if htmlPath == "" {
		return porcupine.CheckOperationsTimeout(model, history, timeout), nil
	}
	result, info := porcupine.CheckOperationsVerbose(model, history, timeout)
	if result != porcupine.Illegal {
		return result, nil
	}
	if err := porcupine.VisualizePath(model, info, htmlPath); err != nil {
		return result, fmt.Errorf("linz: writing visualization: %w", err)
	}
	return result, nil
}
