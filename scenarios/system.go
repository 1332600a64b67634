package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"slices"
)

// Durable stores of a run, as fault specs name them: checkpoint state and the
// completed-checkpoint metadata.
const (
	StoreState    = "state"
	StoreMetadata = "metadata"
)

// System describes, for the faults package, what a run of s has that faults can hit: its
// tasks, hosts, data channels and stores. Validation checks a scenario's schedule against it
// and the swarm draws from it.
func (s *Scenario) System() faults.System {
	g := s.Graph()
	sys := faults.System{
		Tasks:         g.Tasks(),
		Operators:     g.operators(),
		Hosts:         g.Hosts(),
		Stores:        []string{StoreState, StoreMetadata},
		ExternalStore: s.Sink != nil && s.Sink.Kind == SinkTwoPhaseCommit,
		SinkWrites:    s.Sink != nil,
		FaultPhase:    s.Limits.FaultPhase,
	}
	sys.Channels = g.Channels()
	for _, t := range g.rescaled(s.Faults).Tasks() {
		if !slices.Contains(sys.Tasks, t) {
			sys.LateTasks = append(sys.LateTasks, t)
		}
	}
	return sys
}

// Channels returns the data channels of the graph, task to task, in link order and, within a
// link, by sending then receiving subtask: which subtasks a partitioner connects.
func (g Graph) Channels() []faults.Link {
	parallelism := map[string]int{}
	process := map[string]bool{}
	for _, n := range g.Nodes {
		parallelism[n.Name] = n.Parallelism
		process[n.Name] = n.Kind == NodeProcess
	}
	var channels []faults.Link
	for _, l := range g.Links {
		if process[l.From] {
			channels = append(channels, faults.Link{From: l.From, To: l.To})
			continue
		}
		senders, receivers := parallelism[l.From], parallelism[l.To]
		for i := range senders {
			for j := range receivers {
				if l.Partition == PartitionForward && i != j {
					continue
				}
				channels = append(channels, faults.Link{From: TaskID(l.From, i), To: TaskID(l.To, j)})
			}
		}
	}
	return channels
}

// Budget returns the swarm budget for s: the faults package's default for the system, with
// what the scenario's swarm section overrides.
func (s *Scenario) Budget(sys faults.System) faults.Budget {
	b := faults.DefaultBudget(sys)
	if s.Swarm == nil {
		return b
	}
	w := s.Swarm
	b.Kinds = append([]faults.Kind(nil), w.Kinds...)

	b.OutOfModel = w.OutOfModel
	if w.MaxFaults != 0 {
		b.MaxFaults = w.MaxFaults
	}
	if w.MaxWindow != 0 {
		b.MaxWindow = w.MaxWindow
	}
	if w.MinLiveHosts != 0 {
		b.MinLiveHosts = w.MinLiveHosts
	}
	return b
}
