package engine

import "github.com/ckptsim/ckptsim/protocol"

// jobPlan is the graph expanded into tasks and channels: what the coordinator's topology and
// each task's wiring are built from. It is computed once and never changes.
type jobPlan struct {
	tasks []*taskPlan // in Graph.Tasks order
	byID  map[string]*taskPlan
	topo  protocol.Topology
}

// taskPlan is the wiring of one task.
type taskPlan struct {
	id    string
	op    *Operator
	index int
	// inputs are the task's input channels in topology order; inputEdge[i] is the position,
	// among the operator's input edges, of the edge channel i belongs to (Union's side).
	inputs    []protocol.ChannelID
	inputEdge []int
	// inputByFrom finds an input channel by its sending task.
	inputByFrom map[string]int
	// outputs are the output channels in topology order; outputByTo finds one by receiver.
	outputs    []protocol.ChannelID
	outputByTo map[string]int
	// outEdges route records: one per output edge of the operator.
	outEdges []outEdgePlan
}

type outEdgePlan struct {
	partitioning Partitioning
	// channels[j] is the output channel index to downstream task j (-1: not connected).
	channels []int
}

func newJobPlan(g *Graph) *jobPlan {
	p := &jobPlan{byID: make(map[string]*taskPlan)}
	for i := range g.Operators {
		op := &g.Operators[i]
		for idx := 0; idx < op.Parallelism; idx++ {
			tp := &taskPlan{id: TaskID(op.Name, idx), op: op, index: idx,
				inputByFrom: make(map[string]int), outputByTo: make(map[string]int)}
			p.tasks = append(p.tasks, tp)
			p.byID[tp.id] = tp
			p.topo.Tasks = append(p.topo.Tasks, protocol.TaskID(tp.id))
		}
	}
	for _, op := range g.Operators {
		if tok, ok := op.Logic.(Tokens); ok {
			for _, l := range tok.Links {
				p.topo.Channels = append(p.topo.Channels, protocol.ChannelID{
					From: protocol.TaskID(TaskID(op.Name, l[0])), To: protocol.TaskID(TaskID(op.Name, l[1]))})
			}
		}
	}
	for _, e := range g.Edges {
		from, to := g.Operator(e.From), g.Operator(e.To)
		for i := 0; i < from.Parallelism; i++ {
			for j := 0; j < to.Parallelism; j++ {
				if e.Partitioning == Forward && i != j {
					continue
				}
				p.topo.Channels = append(p.topo.Channels, protocol.ChannelID{
					From: protocol.TaskID(TaskID(from.Name, i)),
					To:   protocol.TaskID(TaskID(to.Name, j)),
				})
			}
		}
	}
	for _, tp := range p.tasks {
		p.wire(g, tp)
	}
	return p
}

// wire fills in the channel tables of tp from the topology.
func (p *jobPlan) wire(g *Graph, tp *taskPlan) {
	self := protocol.TaskID(tp.id)
	inEdges := g.inEdges(tp.op.Name)
	for _, c := range p.topo.Inputs(self) {
		fromOp := p.byID[string(c.From)].op.Name
		if fromOp == tp.op.Name { // a tokens link
			tp.inputByFrom[string(c.From)] = len(tp.inputs)
			tp.inputs = append(tp.inputs, c)
			tp.inputEdge = append(tp.inputEdge, 0)
			continue
		}
		side := -1
		for k, e := range inEdges {
			if e.From == fromOp {
				side = k
			}
		}
		if side < 0 {
			panic("engine: input channel " + c.String() + " matches no input edge")
		}
		tp.inputByFrom[string(c.From)] = len(tp.inputs)
		tp.inputs = append(tp.inputs, c)
		tp.inputEdge = append(tp.inputEdge, side)
	}
	for _, c := range p.topo.Outputs(self) {
		tp.outputByTo[string(c.To)] = len(tp.outputs)
		tp.outputs = append(tp.outputs, c)
	}
	for _, e := range g.outEdges(tp.op.Name) {
		to := g.Operator(e.To)
		oe := outEdgePlan{partitioning: e.Partitioning, channels: make([]int, to.Parallelism)}
		for j := range oe.channels {
			if out, ok := tp.outputByTo[TaskID(to.Name, j)]; ok {
				oe.channels[j] = out
			} else {
				oe.channels[j] = -1
			}
		}
		tp.outEdges = append(tp.outEdges, oe)
	}
}
