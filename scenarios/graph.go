package scenarios

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ckptsim/ckptsim/faults"
)

// Graph is a topology expanded into nodes and directed links: what the glue hands to the
// engine, and what validation checks task and host names against.
type Graph struct {
	Nodes []Node
	Links []Link
}

// Graph expands the scenario's topology. A built shape is named as the comments on the
// topology kinds say; its middle operator is a keyed sum under a keyed-sum workload and a map
// otherwise. Call it on a validated scenario.
func (s *Scenario) Graph() Graph {
	t := s.Topology
	p := max(t.Parallelism, 1)
	var g Graph
	node := func(name, kind string) {
		g.Nodes = append(g.Nodes, Node{Name: name, Kind: kind, Parallelism: p})
	}
	link := func(from, to, partition string) {
		g.Links = append(g.Links, Link{From: from, To: to, Partition: partition})
	}
	// work adds the operator that does the workload's work after from, returning its name.
	work := func(from string) string {
		if s.Workload.Kind == WorkloadKeyedSum {
			node("sum", NodeSum)
			link(from, "sum", PartitionHash)
			return "sum"
		}
		return from
	}
	switch t.Kind {
	case TopologyPipeline:
		node("source", NodeSource)
		last := "source"
		for i := 1; i <= max(t.Stages, 1); i++ {
			name := "map" + strconv.Itoa(i)
			node(name, NodeMap)
			link(last, name, PartitionForward)
			last = name
		}
		last = work(last)
		node("sink", NodeSink)
		link(last, "sink", PartitionForward)
	case TopologyKeyedShuffle:
		node("source", NodeSource)
		last := "source"
		if s.Workload.Kind == WorkloadKeyedSum {
			last = work(last)
		} else {
			node("map", NodeMap)
			link("source", "map", PartitionHash)
			last = "map"
		}
		node("sink", NodeSink)
		link(last, "sink", PartitionForward)
	case TopologyFanInUnion:
		// A union merges two inputs, so n sources are merged by a chain of n-1 unions:
		// in1 and in2 into merge2, that and in3 into merge3, ..., the last called union.
		n := max(t.Inputs, 2)
		node("in1", NodeSource)
		merged := "in1"
		for i := 2; i <= n; i++ {
			name := "in" + strconv.Itoa(i)
			union := "merge" + strconv.Itoa(i)
			if i == n {
				union = "union"
			}
			node(name, NodeSource)
			node(union, NodeUnion)
			link(merged, union, PartitionForward)
			link(name, union, PartitionForward)
			merged = union
		}
		last := work("union")
		node("sink", NodeSink)
		link(last, "sink", PartitionForward)
	case TopologyDiamond:
		// Every record takes both branches, so the sink sees it twice. The sum, if any, comes
		// before the split: after the join a key's records would arrive interleaved from two
		// branches, and the sums would depend on timing.
		node("source", NodeSource)
		split := work("source")
		node("left", NodeMap)
		node("right", NodeMap)
		node("join", NodeUnion)
		link(split, "left", PartitionForward)
		link(split, "right", PartitionForward)
		link("left", "join", PartitionForward)
		link("right", "join", PartitionForward)
		node("sink", NodeSink)
		link("join", "sink", PartitionForward)
	case TopologyCycle:
		if s.Mode == ModeChandyLamport {
			n := max(t.Processes, 2)
			for i := range n {
				g.Nodes = append(g.Nodes, Node{Name: Process(i), Kind: NodeProcess, Parallelism: 1})
			}
			for i := range n {
				link(Process(i), Process((i+1)%n), PartitionForward)
			}
			break
		}
		// The head merges fresh input with what the body feeds back; the body sends part of
		// its output around again and the rest to the sink.
		node("source", NodeSource)
		node("head", NodeUnion)
		link("source", "head", PartitionForward)
		body := "body"
		if s.Workload.Kind == WorkloadKeyedSum {
			node("sum", NodeSum)
			link("head", "sum", PartitionHash)
			body = "sum"
		} else {
			node("body", NodeMap)
			link("head", "body", PartitionForward)
		}
		link(body, "head", PartitionForward)
		if s.Workload.Kind != WorkloadTokens {
			node("sink", NodeSink)
			link(body, "sink", PartitionForward)
		}
	case TopologyExplicit:
		if s.Mode == ModeChandyLamport {
			// Processes keep their names as written: the engine's tokens operator names its
			// tasks after them (engine.Operator.TaskNames), so the script, the faults and
			// the trace all use them.
			for _, n := range t.Nodes {
				n.Parallelism = 1
				g.Nodes = append(g.Nodes, n)
			}
			for _, l := range t.Links {
				link(l.From, l.To, PartitionForward)
			}
			break
		}
		for _, n := range t.Nodes {
			n.Parallelism = max(n.Parallelism, 1)
			g.Nodes = append(g.Nodes, n)
		}
		for _, l := range t.Links {
			if l.Partition == "" {
				l.Partition = PartitionForward
			}
			g.Links = append(g.Links, l)
		}
	default:
		panic(fmt.Sprintf("scenarios: Graph of unvalidated topology kind %q", t.Kind))
	}
	return g
}

// ProcessOperator is the name of the engine's tokens operator, whose tasks are the processes
// of a chandy-lamport scenario.
const ProcessOperator = "p"

// Process names process i of a chandy-lamport ring (topology cycle): task i of the tokens
// operator. The processes of an explicit topology are named as its nodes are.
func Process(i int) string { return TaskID(ProcessOperator, i) }

// Tasks returns the task ids of the graph in node order: "<node>-<subtask>" for dataflow
// operators, the node name itself for chandy-lamport processes.
func (g Graph) Tasks() []string {
	var tasks []string
	for _, n := range g.Nodes {
		if n.Kind == NodeProcess {
			tasks = append(tasks, n.Name)
			continue
		}
		for i := range n.Parallelism {
			tasks = append(tasks, TaskID(n.Name, i))
		}
	}
	return tasks
}

// TaskID names subtask i of an operator.
func TaskID(node string, subtask int) string { return node + "-" + strconv.Itoa(subtask) }

// Hosts of a job, as the simulator places its processes (scenarios/simenv): the coordinator
// alone on one host, the external store and its readers on another, and subtask i of every
// operator on task host tm-i, the way a cluster of equal workers with slot sharing would. A
// chandy-lamport graph puts process i on tm-i.
const (
	HostCoordinator = "jm"
	HostExternal    = "ext"
)

// TaskHost names task host i.
func TaskHost(i int) string { return "tm-" + strconv.Itoa(i) }

// Hosts returns the host names of the graph, in the order the simulator creates them.
func (g Graph) Hosts() []string {
	hosts := []string{HostCoordinator, HostExternal}
	for i := range g.TaskHosts() {
		hosts = append(hosts, TaskHost(i))
	}
	return hosts
}

// TaskHosts returns how many task hosts the graph needs: its largest parallelism, or its
// number of processes.
func (g Graph) TaskHosts() int {
	n := 0
	for _, node := range g.Nodes {
		if node.Kind == NodeProcess {
			n++
		} else {
			n = max(n, node.Parallelism)
		}
	}
	return n
}

// HostOf returns the host that runs task, or "" when task is not in the graph.
func (g Graph) HostOf(task string) string {
	process := 0
	for _, n := range g.Nodes {
		if n.Kind == NodeProcess {
			if n.Name == task {
				return TaskHost(process)
			}
			process++
			continue
		}
		for i := range n.Parallelism {
			if TaskID(n.Name, i) == task {
				return TaskHost(i)
			}
		}
	}
	return ""
}

// HasCycle reports whether the links form a directed cycle.
func (g Graph) HasCycle() bool {
	next := map[string][]string{}
	for _, l := range g.Links {
		next[l.From] = append(next[l.From], l.To)
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var visit func(string) bool
	visit = func(n string) bool {
		state[n] = onPath
		for _, m := range next[n] {
			if state[m] == onPath || (state[m] == unseen && visit(m)) {
				return true
			}
		}
		state[n] = done
		return false
	}
	for _, n := range g.Nodes {
		if state[n.Name] == unseen && visit(n.Name) {
			return true
		}
	}
	return false
}

// operators returns the names of the graph's dataflow operators, in node order.
func (g Graph) operators() []string {
	var ops []string
	for _, n := range g.Nodes {
		if n.Kind != NodeProcess {
			ops = append(ops, n.Name)
		}
	}
	return ops
}

// rescaled returns the graph with every task that a rescale in schedule may start: each
// rescaled operator, and those forward links tie to it, at the larger of its parallelisms.
// Faults may name those tasks; until a rescale starts them they are not running.
func (g Graph) rescaled(schedule []faults.Entry) Graph {
	out := Graph{Nodes: slices.Clone(g.Nodes), Links: g.Links}
	for _, e := range schedule {
		if e.Fault.Kind != faults.Rescale {
			continue
		}
		tied := map[string]bool{e.Fault.Operator: true}
		for grew := true; grew; {
			grew = false
			for _, l := range g.Links {
				if l.Partition == PartitionForward && tied[l.From] != tied[l.To] {
					tied[l.From], tied[l.To], grew = true, true, true
				}
			}
		}
		for i := range out.Nodes {
			if tied[out.Nodes[i].Name] {
				out.Nodes[i].Parallelism = max(out.Nodes[i].Parallelism, e.Fault.Parallelism)
			}
		}
	}
	return out
}
