package engine

import (
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// jobPlan is the graph expanded into tasks and channels: what the coordinator's topology and
// each task's wiring are built from. It is computed once and never changes.
type jobPlan struct {
	graph   *Graph
	tasks   []*taskPlan // in Graph.Tasks order
	byID    map[string]*taskPlan
	topo    protocol.Topology
	catalog *catalog // what the job's records refer to
	// overtaking: barriers may overtake records (unaligned checkpoints, also after an
	// aligned-with-timeout switch), so snapshots trace their output-side channel state.
	overtaking bool
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
	// snapshotKeys are the attribute keys of the task's snapshot.taken, in key order, and
	// the slots say where each one is: made once, so that a snapshot neither builds keys
	// nor sorts them.
	snapshotKeys []string
	slots        snapshotSlots
	// keyGroups renders the key groups the task owns ("first-last"), for the snapshot.taken
	// and task.restore of a task whose keyed state is by key group (keyGroupsOf); empty for
	// any other.
	keyGroups string
	// union names the union list state the task keeps (a source's partition offsets, named
	// after its operator), which a rescale gives whole to every new task; empty for none.
	union string
}

// snapshotSlots are the positions in taskPlan.snapshotKeys of each attribute.
type snapshotSlots struct {
	state, tokens              int   // tokens: -1 unless a JobKind's task
	keyGroups                  int   // -1 unless the task is keyed by key group
	union                      int   // -1 unless the task keeps union state
	sent, recv, chan_, chanTok []int // per output or input channel; chanTok nil unless a JobKind's
	out                        []int // per output channel; nil unless barriers may overtake
}

type outEdgePlan struct {
	partitioning Partitioning
	// channels[j] is the output channel index to downstream task j (-1: not connected).
	channels []int
}

func newJobPlan(g *Graph, overtaking bool) *jobPlan {
	return newJobPlanOf(g, newCatalog(g), overtaking)
}

// newJobPlanWith plans graph g, a rescaled version of prev's: it keeps prev's catalog,
// which does not depend on the parallelism, so that the records of both plans compare.
func newJobPlanWith(g *Graph, prev *jobPlan) *jobPlan {
	return newJobPlanOf(g, prev.catalog, prev.overtaking)
}

func newJobPlanOf(g *Graph, c *catalog, overtaking bool) *jobPlan {
	p := &jobPlan{graph: g, byID: make(map[string]*taskPlan), catalog: c, overtaking: overtaking}
	for i := range g.Operators {
		op := &g.Operators[i]
		for idx := 0; idx < op.Parallelism; idx++ {
			tp := &taskPlan{id: op.TaskID(idx), op: op, index: idx,
				inputByFrom: make(map[string]int), outputByTo: make(map[string]int)}
			p.tasks = append(p.tasks, tp)
			p.byID[tp.id] = tp
			p.topo.Tasks = append(p.topo.Tasks, protocol.TaskID(tp.id))
		}
	}
	for i := range g.Operators {
		op := &g.Operators[i]
		if k, ok := op.Logic.(JobKind); ok {
			for _, l := range k.Channels() {
				p.topo.Channels = append(p.topo.Channels, protocol.ChannelID{
					From: protocol.TaskID(op.TaskID(l[0])), To: protocol.TaskID(op.TaskID(l[1]))})
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
					From: protocol.TaskID(from.TaskID(i)),
					To:   protocol.TaskID(to.TaskID(j)),
				})
			}
		}
	}
	for _, tp := range p.tasks {
		p.wire(g, tp)
	}
	p.topo.SplitSources = splitSources(g)
	return p
}

// reads reports whether task is a reader of a split source.
func (p *jobPlan) reads(task string) bool {
	tp := p.byID[task]
	if tp == nil {
		return false
	}
	src, ok := tp.op.Logic.(Source)
	return ok && src.Enumerated
}

// splitSources lists the enumerated sources for the coordinator: their tasks and splits.
func splitSources(g *Graph) []protocol.SplitSource {
	var out []protocol.SplitSource
	for i := range g.Operators {
		op := &g.Operators[i]
		src, ok := op.Logic.(Source)
		if !ok || !src.Enumerated {
			continue
		}
		var s protocol.SplitSource
		for idx := range op.Parallelism {
			s.Readers = append(s.Readers, protocol.TaskID(op.TaskID(idx)))
		}
		for p := range src.Partitions {
			s.Splits = append(s.Splits, splitName(op.Name, p))
		}
		out = append(out, s)
	}
	return out
}

// layoutSnapshotKeys lists the attribute keys of the task's snapshot.taken in key order and
// records each one's slot.
func (tp *taskPlan) layoutSnapshotKeys(overtaking bool) {
	var keys []string
	add := func(key string) int { // returns the key's index before sorting
		keys = append(keys, key)
		return len(keys) - 1
	}
	s := snapshotSlots{state: add(trace.AttrState), tokens: -1, keyGroups: -1, union: -1}
	if tp.keyGroups != "" {
		s.keyGroups = add(trace.AttrKeyGroups)
	}
	if tp.union != "" {
		s.union = add(trace.AttrUnionPrefix + tp.union)
	}
	for _, c := range tp.outputs {
		s.sent = append(s.sent, add(trace.AttrSentPrefix+string(c.To)))
		if overtaking {
			s.out = append(s.out, add(trace.AttrOutPrefix+string(c.To)))
		}
	}
	for _, c := range tp.inputs {
		s.recv = append(s.recv, add(trace.AttrRecvPrefix+string(c.From)))
		s.chan_ = append(s.chan_, add(trace.AttrChanPrefix+string(c.From)))
	}
	if _, kind := tp.op.Logic.(JobKind); kind {
		s.tokens = add(trace.AttrTokens)
		for _, c := range tp.inputs {
			s.chanTok = append(s.chanTok, add(trace.AttrChanTokensPrefix+string(c.From)))
		}
	}
	tp.snapshotKeys = slices.Clone(keys)
	slices.Sort(tp.snapshotKeys)
	position := make(map[string]int, len(keys))
	for k, key := range tp.snapshotKeys {
		position[key] = k
	}
	at := func(i int) int { return position[keys[i]] }
	s.state = at(s.state)
	if s.tokens >= 0 {
		s.tokens = at(s.tokens)
	}
	if s.keyGroups >= 0 {
		s.keyGroups = at(s.keyGroups)
	}
	if s.union >= 0 {
		s.union = at(s.union)
	}
	for _, list := range [][]int{s.sent, s.out, s.recv, s.chan_, s.chanTok} {
		for j := range list {
			list[j] = at(list[j])
		}
	}
	tp.slots = s
}

// wire fills in the channel tables of tp from the topology.
func (p *jobPlan) wire(g *Graph, tp *taskPlan) {
	self := protocol.TaskID(tp.id)
	inEdges := g.inEdges(tp.op.Name)
	for _, c := range p.topo.Inputs(self) {
		fromOp := p.byID[string(c.From)].op.Name
		if fromOp == tp.op.Name { // a JobKind's link
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
			panic(invariantf("engine: input channel %s matches no input edge", c))
		}
		tp.inputByFrom[string(c.From)] = len(tp.inputs)
		tp.inputs = append(tp.inputs, c)
		tp.inputEdge = append(tp.inputEdge, side)
	}
	for _, c := range p.topo.Outputs(self) {
		tp.outputByTo[string(c.To)] = len(tp.outputs)
		tp.outputs = append(tp.outputs, c)
	}
	if r, ok := keyGroupsOf(g, tp); ok {
		tp.keyGroups = r.String()
	}
	if l, ok := tp.op.Logic.(Source); ok && !l.Enumerated {
		tp.union = tp.op.Name
	}
	tp.layoutSnapshotKeys(p.overtaking)
	for _, e := range g.outEdges(tp.op.Name) {
		to := g.Operator(e.To)
		oe := outEdgePlan{partitioning: e.Partitioning, channels: make([]int, to.Parallelism)}
		for j := range oe.channels {
			if out, ok := tp.outputByTo[to.TaskID(j)]; ok {
				oe.channels[j] = out
			} else {
				oe.channels[j] = -1
			}
		}
		tp.outEdges = append(tp.outEdges, oe)
	}
}

// keyGroupsOf returns the key groups task tp owns, if it holds keyed state by key group:
// an aggregate whose every input is a Hash edge, in a job with a MaxParallelism.
func keyGroupsOf(g *Graph, tp *taskPlan) (protocol.KeyGroupRange, bool) {
	in := g.inEdges(tp.op.Name)
	if _, keyed := tp.op.Logic.(Aggregate); !keyed || g.MaxParallelism == 0 || len(in) == 0 {
		return protocol.KeyGroupRange{}, false
	}
	for _, e := range in {
		if e.Partitioning != Hash {
			return protocol.KeyGroupRange{}, false
		}
	}
	return protocol.KeyGroupRangeOf(tp.index, g.MaxParallelism, tp.op.Parallelism), true
}
