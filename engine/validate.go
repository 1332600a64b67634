package engine

import (
	"fmt"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
)

// MaxParallelism bounds the tasks of one operator.
const MaxParallelism = 1024

// reservedNames are process names the engine uses for itself; an operator may not take one.
var reservedNames = []string{"coordinator", "extstore", "reader"}

// validate checks the graph's shape. cyclesAllowed is true only for the modes that can
// snapshot a cyclic graph (unaligned and chandy-lamport): an aligned barrier waits for
// barriers from every input, and on a cycle one of them comes from downstream of itself.
func (g *Graph) validate(cyclesAllowed bool) error {
	if len(g.Operators) == 0 {
		return fmt.Errorf("engine: graph has no operators")
	}
	seen := make(map[string]bool, len(g.Operators))
	for i := range g.Operators {
		op := &g.Operators[i]
		if err := validName(op.Name); err != nil {
			return fmt.Errorf("engine: operator %d: %w", i, err)
		}
		if seen[op.Name] {
			return fmt.Errorf("engine: operator %q is defined twice", op.Name)
		}
		seen[op.Name] = true
		if op.Parallelism < 1 || op.Parallelism > MaxParallelism {
			return fmt.Errorf("engine: operator %q: parallelism %d is not in 1..%d", op.Name, op.Parallelism, MaxParallelism)
		}
		if op.RecordCost < 0 {
			return fmt.Errorf("engine: operator %q: negative record cost", op.Name)
		}
		if op.Logic == nil {
			return fmt.Errorf("engine: operator %q has no logic", op.Name)
		}
		if err := g.validateLogic(op); err != nil {
			return err
		}
	}
	if err := g.validateEdges(seen); err != nil {
		return err
	}
	if err := g.validateKeyGroups(); err != nil {
		return err
	}
	for i := range g.Operators {
		op := &g.Operators[i]
		least, most, outputs := edgesOf(op.Logic)
		n := len(g.inEdges(op.Name))
		if n < least || (most >= 0 && n > most) {
			return fmt.Errorf("engine: operator %q (%s) has %d input edges, want %s", op.Name, op.Logic.Kind(), n, countRange(least, most))
		}
		if out := g.outEdges(op.Name); len(out) > 0 && !outputs {
			return fmt.Errorf("engine: edge %s: operator %q (%s) has no output", out[0], op.Name, op.Logic.Kind())
		}
	}
	if !cyclesAllowed {
		if e, ok := g.cycleEdge(); ok {
			return fmt.Errorf("engine: edge %s closes a cycle; only unaligned and chandy-lamport modes snapshot cyclic graphs", e)
		}
	}
	return nil
}

// validateKeyGroups checks MaxParallelism against the operators that Hash edges feed: a
// task needs at least one key group.
func (g *Graph) validateKeyGroups() error {
	if g.MaxParallelism == 0 {
		return nil
	}
	if g.MaxParallelism < 1 || g.MaxParallelism > protocol.MaxKeyGroups {
		return fmt.Errorf("engine: max parallelism %d is not in 1..%d", g.MaxParallelism, protocol.MaxKeyGroups)
	}
	for _, e := range g.Edges {
		if op := g.Operator(e.To); e.Partitioning == Hash && op.Parallelism > g.MaxParallelism {
			return fmt.Errorf("engine: operator %q: parallelism %d is above the max parallelism %d, its key groups", op.Name, op.Parallelism, g.MaxParallelism)
		}
	}
	return nil
}

// validateLogic checks what op's logic asks of it: a job kind runs alone and may name its
// tasks; any other logic checks itself where it has more to check.
func (g *Graph) validateLogic(op *Operator) error {
	_, barrier := op.Logic.(arity)
	kind, isKind := op.Logic.(JobKind)
	if !barrier && !isKind {
		return fmt.Errorf("engine: operator %q: unknown logic %T", op.Name, op.Logic)
	}
	if op.TaskNames != nil {
		if !isKind {
			return fmt.Errorf("engine: operator %q (%s): only a job kind's operator names its tasks (TaskNames)", op.Name, op.Logic.Kind())
		}
		if err := validTaskNames(op); err != nil {
			return fmt.Errorf("engine: operator %q (%s): %w", op.Name, op.Logic.Kind(), err)
		}
	}
	if isKind {
		if len(g.Operators) != 1 || len(g.Edges) != 0 {
			return fmt.Errorf("engine: operator %q (%s): a %s operator must be the job's only operator, without edges (its channels are Links)", op.Name, op.Logic.Kind(), op.Logic.Kind())
		}
		if err := kind.Validate(op); err != nil {
			return fmt.Errorf("engine: operator %q (%s): %w", op.Name, op.Logic.Kind(), err)
		}
	}
	if v, ok := op.Logic.(interface{ validate(*Graph, *Operator) error }); ok {
		if err := v.validate(g, op); err != nil {
			return fmt.Errorf("engine: operator %q (%s): %w", op.Name, op.Logic.Kind(), err)
		}
	}
	return nil
}

func (g *Graph) validateEdges(ops map[string]bool) error {
	pairs := make(map[[2]string]bool, len(g.Edges))
	for _, e := range g.Edges {
		if !ops[e.From] {
			return fmt.Errorf("engine: edge %s: no operator %q", e, e.From)
		}
		if !ops[e.To] {
			return fmt.Errorf("engine: edge %s: no operator %q", e, e.To)
		}
		if e.Partitioning < Forward || e.Partitioning > Broadcast {
			return fmt.Errorf("engine: edge %s: unknown partitioning", e)
		}
		key := [2]string{e.From, e.To}
		if pairs[key] {
			return fmt.Errorf("engine: edge %s: %q and %q are already connected", e, e.From, e.To)
		}
		pairs[key] = true
		if e.Partitioning == Forward {
			from, to := g.Operator(e.From), g.Operator(e.To)
			if from.Parallelism != to.Parallelism {
				return fmt.Errorf("engine: edge %s: forward needs equal parallelism, have %d and %d", e, from.Parallelism, to.Parallelism)
			}
		}
	}
	return nil
}

// cycleEdge returns an edge that closes a cycle, found by depth-first search in graph order
// so the error names the same edge every time.
func (g *Graph) cycleEdge() (Edge, bool) {
	const (
		unvisited = iota
		onPath
		done
	)
	state := make(map[string]int, len(g.Operators))
	var found Edge
	var visit func(op string) bool
	visit = func(op string) bool {
		state[op] = onPath
		for _, e := range g.outEdges(op) {
			switch state[e.To] {
			case onPath:
				found = e
				return true
			case unvisited:
				if visit(e.To) {
					return true
				}
			}
		}
		state[op] = done
		return false
	}
	for _, op := range g.Operators {
		if state[op.Name] == unvisited && visit(op.Name) {
			return found, true
		}
	}
	return Edge{}, false
}

// validName accepts lower-case letters, digits and underscores, starting with a letter, so
// that task ids ("<op>-<index>") parse one way and can be used in trace attribute keys.
func validName(name string) error {
	if name == "" {
		return fmt.Errorf("empty name")
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r == '_' || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return fmt.Errorf("name %q: use lower-case letters, digits and '_', starting with a letter", name)
		}
	}
	for _, r := range reservedNames {
		if name == r {
			return fmt.Errorf("name %q is reserved", name)
		}
	}
	return nil
}

// MaxTaskNameBytes bounds a task name of Operator.TaskNames.
const MaxTaskNameBytes = 64

// ReaderPrefix starts the process name of every reader client of the external store
// (ReaderName).
const ReaderPrefix = "reader-"

// validTaskNames checks an operator's TaskNames: one per task, distinct, each a valid task
// name (ValidTaskName).
func validTaskNames(op *Operator) error {
	if len(op.TaskNames) != op.Parallelism {
		return fmt.Errorf("%d task names for %d tasks", len(op.TaskNames), op.Parallelism)
	}
	seen := make(map[string]bool, len(op.TaskNames))
	for i, name := range op.TaskNames {
		if err := ValidTaskName(name); err != nil {
			return fmt.Errorf("task %d: %w", i, err)
		}
		if seen[name] {
			return fmt.Errorf("task %d: %q names two tasks", i, name)
		}
		seen[name] = true
	}
	return nil
}

// ValidTaskName reports why name cannot be the id of a task named by Operator.TaskNames,
// or nil if it can: 1 to MaxTaskNameBytes ASCII letters (either case), digits, '-' and '_',
// starting with a letter. Those characters need no escaping in a trace attribute key
// (sent:<task>), and leave the separators of the ids built from a task's id free: ':' of
// its record ids ("<task>:<n>") and '/' of a snapshot's origin ("coordinator/<task>"). The
// engine's own processes share one namespace with the tasks on an Env, so a task may not
// take their names: coordinator, extstore, or a reader's reader-<i> (any name starting
// with reader-, which a host places as a reader).
func ValidTaskName(name string) error {
	if name == "" || len(name) > MaxTaskNameBytes {
		return fmt.Errorf("task name %q: want 1 to %d bytes", name, MaxTaskNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '-' || c == '_')) {
			return fmt.Errorf("task name %q: use letters, digits, '-' and '_', starting with a letter", name)
		}
	}
	if name == coordinatorName || name == storeName || strings.HasPrefix(name, ReaderPrefix) {
		return fmt.Errorf("task name %q is the engine's own (coordinator, extstore and reader-<i> are its processes)", name)
	}
	return nil
}

func countRange(least, most int) string {
	switch {
	case most < 0:
		return fmt.Sprintf("at least %d", least)
	case least == most:
		return fmt.Sprintf("exactly %d", least)
	}
	return fmt.Sprintf("%d to %d", least, most)
}
