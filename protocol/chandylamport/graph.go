package chandylamport

import (
	"fmt"
	"slices"
)

// Graph is the static topology: the processes and the directed channels between them. Any
// directed graph is allowed (cycles, processes without inputs or without outputs, isolated
// processes) except self-loops, which the algorithm has no use for and which usually mean a
// wiring mistake. A Process needs only its own neighbours (Config); the Graph serves the host
// and the Collector, which need the whole picture.
type Graph struct {
	processes []ProcessID // sorted
	channels  []Channel   // sorted
	inputs    map[ProcessID][]ProcessID
	outputs   map[ProcessID][]ProcessID
}

// NewGraph checks and builds a graph. Every channel endpoint must be listed in processes;
// processes and channels must not repeat; no channel may lead from a process to itself.
func NewGraph(processes []ProcessID, channels []Channel) (*Graph, error) {
	g := &Graph{
		processes: slices.Clone(processes),
		channels:  slices.Clone(channels),
		inputs:    make(map[ProcessID][]ProcessID, len(processes)),
		outputs:   make(map[ProcessID][]ProcessID, len(processes)),
	}
	slices.Sort(g.processes)
	slices.SortFunc(g.channels, compareChannels)
	for i, p := range g.processes {
		if err := p.validate(); err != nil {
			return nil, err
		}
		if i > 0 && g.processes[i-1] == p {
			return nil, fmt.Errorf("%w: process %s listed twice", ErrBadGraph, p)
		}
		g.inputs[p] = nil
		g.outputs[p] = nil
	}
	for i, c := range g.channels {
		if c.From == c.To {
			return nil, fmt.Errorf("%w: self-loop %s: a process cannot have a channel to itself", ErrBadGraph, c)
		}
		if i > 0 && g.channels[i-1] == c {
			return nil, fmt.Errorf("%w: channel %s listed twice", ErrBadGraph, c)
		}
		for _, end := range []ProcessID{c.From, c.To} {
			if _, ok := g.inputs[end]; !ok {
				return nil, fmt.Errorf("%w: channel %s names unknown process %q", ErrBadGraph, c, end)
			}
		}
		// Channels are sorted by (From, To), so both lists come out sorted.
		g.outputs[c.From] = append(g.outputs[c.From], c.To)
		g.inputs[c.To] = append(g.inputs[c.To], c.From)
	}
	for _, p := range g.processes {
		slices.Sort(g.inputs[p])
	}
	return g, nil
}

// Processes returns every process, sorted.
func (g *Graph) Processes() []ProcessID { return slices.Clone(g.processes) }

// Channels returns every channel, sorted by sender, then receiver.
func (g *Graph) Channels() []Channel { return slices.Clone(g.channels) }

// Inputs returns the senders of p's incoming channels, sorted (nil for an unknown p).
func (g *Graph) Inputs(p ProcessID) []ProcessID { return slices.Clone(g.inputs[p]) }

// Outputs returns the receivers of p's outgoing channels, sorted (nil for an unknown p).
func (g *Graph) Outputs(p ProcessID) []ProcessID { return slices.Clone(g.outputs[p]) }

// Has reports whether p is a process of the graph.
func (g *Graph) Has(p ProcessID) bool {
	_, ok := g.inputs[p]
	return ok
}

// Joiners returns the processes, other than origin, that the host must Join to a snapshot
// initiated at origin so that every process records it: markers only reach processes that
// origin can reach, and a process that never records a snapshot leaves it incomplete forever
// (its state is missing, and so is the closing marker its successors wait for).
//
// The answer is the smallest such set: one process (the least name) from each strongly
// connected component that origin cannot reach and that no other unreached component feeds.
// It is empty on a strongly connected graph, which is the setting of the original paper.
// It is computed with one graph search per unreached process, so the cost is
// O(unreached · (processes + channels)); hosts that initiate often should cache it per origin.
func (g *Graph) Joiners(origin ProcessID) []ProcessID {
	if !g.Has(origin) {
		return nil
	}
	reached := g.reach(origin)
	var unreached []ProcessID
	for _, p := range g.processes {
		if !reached[p] {
			unreached = append(unreached, p)
		}
	}
	// A path that ends at an unreached process runs through unreached processes only (anything
	// after a reached process is reached), so reachability among them needs no restriction.
	reachFrom := make(map[ProcessID]map[ProcessID]bool, len(unreached))
	for _, p := range unreached {
		reachFrom[p] = g.reach(p)
	}
	var joiners []ProcessID
	for _, p := range unreached {
		if g.fedFromOutside(p, unreached, reachFrom) {
			continue
		}
		// p's component is a source: join only its least member. unreached is sorted, so the
		// least member is the first one met that shares p's component.
		first := true
		for _, q := range joiners {
			if reachFrom[p][q] && reachFrom[q][p] {
				first = false
				break
			}
		}
		if first {
			joiners = append(joiners, p)
		}
	}
	return joiners
}

// fedFromOutside reports whether some unreached process outside p's strongly connected
// component reaches p, in which case p's component is not a source and needs no join.
func (g *Graph) fedFromOutside(p ProcessID, unreached []ProcessID, reachFrom map[ProcessID]map[ProcessID]bool) bool {
	for _, q := range unreached {
		if q != p && reachFrom[q][p] && !reachFrom[p][q] {
			return true
		}
	}
	return false
}

// reach returns the set of processes reachable from start, start included.
func (g *Graph) reach(start ProcessID) map[ProcessID]bool {
	seen := map[ProcessID]bool{start: true}
	stack := []ProcessID{start}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range g.outputs[p] {
			if !seen[q] {
				seen[q] = true
				stack = append(stack, q)
			}
		}
	}
	return seen
}
