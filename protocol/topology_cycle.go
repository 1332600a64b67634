package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCyclicTopology is returned when a request needs an acyclic job graph:
// NewCoordinator in ModeAligned and ModeAtLeastOnce, and TriggerSavepoint.
// On a cycle a task can only receive the barrier of its back edge after it
// forwarded the barrier itself, so an aligned (or counting) task would wait
// for a barrier that its own waiting holds back. The error names one cycle.
var ErrCyclicTopology = errors.New("protocol: topology has a cycle")

// Cycle returns one cycle of the job graph as the tasks along it, the first
// task repeated at the end ("a", "b", "a"), or nil when the graph is acyclic.
// The search visits tasks in Tasks order and channels in Channels order, so
// the same topology always names the same cycle.
func (t Topology) Cycle() []TaskID {
	index := make(map[TaskID]int, len(t.Tasks))
	for i, id := range t.Tasks {
		index[id] = i
	}
	next := make([][]int, len(t.Tasks))
	for _, c := range t.Channels {
		from, okFrom := index[c.From]
		to, okTo := index[c.To]
		if okFrom && okTo {
			next[from] = append(next[from], to)
		}
	}
	// Iterative depth-first search: state 0 unvisited, 1 on the current
	// path, 2 done. An edge into a task on the path closes a cycle.
	state := make([]uint8, len(t.Tasks))
	var path []int
	var edge []int // next outgoing edge to try, per path entry
	for root := range t.Tasks {
		if state[root] != 0 {
			continue
		}
		path, edge = append(path[:0], root), append(edge[:0], 0)
		state[root] = 1
		for len(path) > 0 {
			top := len(path) - 1
			u := path[top]
			if edge[top] == len(next[u]) {
				state[u] = 2
				path, edge = path[:top], edge[:top]
				continue
			}
			v := next[u][edge[top]]
			edge[top]++
			switch state[v] {
			case 0:
				state[v] = 1
				path, edge = append(path, v), append(edge, 0)
			case 1:
				start := 0
				for path[start] != v {
					start++
				}
				cycle := make([]TaskID, 0, len(path)-start+1)
				for _, k := range path[start:] {
					cycle = append(cycle, t.Tasks[k])
				}
				return append(cycle, t.Tasks[v])
			}
		}
	}
	return nil
}

// cycleError wraps ErrCyclicTopology with the cycle and what needs the graph
// acyclic, for example "protocol: topology has a cycle: a->b->a: mode
// aligned needs an acyclic graph".
func cycleError(cycle []TaskID, what string) error {
	names := make([]string, len(cycle))
	for i, id := range cycle {
		names[i] = string(id)
	}
	return fmt.Errorf("%w: %s: %s needs an acyclic graph", ErrCyclicTopology, strings.Join(names, "->"), what)
}
