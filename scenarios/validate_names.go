package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// nameSet holds the task, host and process names a fault or step may refer to.
type nameSet struct {
	tasks map[string]bool
	hosts map[string]bool
	hint  string // a few example names for error messages
	// renamed maps the names earlier builds gave the processes of an explicit topology (p-0,
	// p-1, ... in node order) to the nodes they name ("node 0, \"N1\""), whose names they
	// go by now: a file written for such a build is told what to write instead.
	renamed map[string]string
}

func (s *Scenario) newNameSet(g Graph) nameSet {
	chandyLamport := s.Mode == ModeChandyLamport
	n := nameSet{tasks: map[string]bool{}, hosts: map[string]bool{}, renamed: map[string]string{}}
	if chandyLamport && s.Topology.Kind == TopologyExplicit {
		for i, node := range g.Nodes {
			if old := Process(i); old != node.Name {
				n.renamed[old] = fmt.Sprintf("node %d, %q", i, node.Name)
			}
		}
	}
	tasks := g.Tasks()
	for _, t := range tasks {
		n.tasks[t] = true
	}
	for _, h := range g.Hosts() {
		n.hosts[h] = true
	}
	examples := tasks[:min(3, len(tasks))]
	kind := "tasks"
	if chandyLamport {
		kind = "processes"
	}
	hosts := g.Hosts()
	n.hint = fmt.Sprintf("%s are named like %s; hosts are %s", kind, strings.Join(examples, ", "), strings.Join(hosts[:min(4, len(hosts))], ", "))
	return n
}

// renamedRule says what became of the names p-0, p-1, ... in an explicit topology.
const renamedRule = "an explicit topology's processes go by their node names now, not p-0, p-1, ..."

// notProcess says that name is not a process, with the names there are.
func (n nameSet) notProcess(name string) string {
	if node, ok := n.renamed[name]; ok && !n.tasks[name] {
		return fmt.Sprintf("%q is not a process: %s (%s was %s)", name, renamedRule, name, node)
	}
	return fmt.Sprintf("%q is not a process (%s)", name, n.hint)
}

// renamedHint adds to msg, an error about a fault of the schedule, what an old process name
// it quotes is called now (see renamed).
func (n nameSet) renamedHint(msg string) string {
	if len(n.renamed) == 0 {
		return msg
	}
	for i := range len(n.tasks) { // the processes, p-0 to p-<n-1> once
		old := Process(i)
		if node, ok := n.renamed[old]; ok && !n.tasks[old] && strings.Contains(msg, `"`+old+`"`) {
			return fmt.Sprintf("%s (%s: %s was %s)", msg, renamedRule, old, node)
		}
	}
	return msg
}

func (s *Scenario) validateInitiators(p *problems, path string, names nameSet) {
	for i, name := range s.Checkpoint.Initiators {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case !names.tasks[name]:
			p.add(at, "%s", names.notProcess(name))
		case slices.Index(s.Checkpoint.Initiators, name) != i:
			p.add(at, "%q is listed twice", name)
		}
	}
}

// validateFaults checks the fault schedule with the faults package, which knows what each
// kind takes, then against the scenario's system (its tasks, hosts, channels and stores);
// errors keep the faults package's field names under root.faults[i].
func (s *Scenario) validateFaults(p *problems, root string, names nameSet) {
	if len(s.Faults) > 0 && s.Swarm != nil {
		p.add(root+".swarm", "give either faults or swarm, not both")
	}
	sys := s.System()
	sched := faults.Schedule{Entries: s.Faults}
	err := sched.Validate()
	if err == nil {
		err = sys.CheckNames(sched) // times below, in the file's words
	}
	if err != nil {
		p.list = append(p.list, names.renamedHint(faultsPath(err, root+".faults")))
	} else {
		s.validateFaultTimes(p, root+".faults")
	}
	eachWrite := s.Sink != nil && s.Sink.TraceEachWrite
	for i, e := range s.Faults {
		at := fmt.Sprintf("%s.faults[%d].trigger.kind", root, i)
		switch {
		case e.Trigger.Kind == trace.KindSinkWrite && !eachWrite:
			p.add(at, "sink.write events are traced only with sink.trace_each_write (else one sink.writes per buffer)")
		case e.Trigger.Kind == trace.KindSinkWrites && eachWrite:
			p.add(at, "sink.writes events are not traced with sink.trace_each_write (one sink.write per record instead)")
		}
	}
	if s.Swarm == nil {
		return
	}
	path := root + ".swarm"
	for i, kind := range s.Swarm.Kinds {
		at := fmt.Sprintf("%s.kinds[%d]", path, i)
		switch {
		case !kind.Known():
			p.add(at, "%q is not a fault kind (%s)", kind, kindList())
		case slices.Index(s.Swarm.Kinds, kind) != i:
			p.add(at, "%q is listed twice", kind)
		case kind.OutOfModel() && !s.Swarm.OutOfModel:
			p.add(at, "%q is out of model; set out_of_model to draw it", kind)
		}
	}
	p.intIn(path+".max_faults", s.Swarm.MaxFaults, 1, faults.MaxEntries)
	p.span(path+".max_window", s.Swarm.MaxWindow, false)
	p.intIn(path+".min_live_hosts", s.Swarm.MinLiveHosts, 0, len(sys.Hosts))
	if len(p.list) == 0 {
		if err := s.Budget(sys).Validate(sys); err != nil {
			p.add(path, "%s", strings.TrimPrefix(err.Error(), "faults: "))
		}
	}
}

// faultsPath rewrites an error of the faults package about "entries[i]..." into one about
// prefix[i]..., so that it names the field in the file the user wrote.
func faultsPath(err error, prefix string) string {
	msg := strings.TrimPrefix(err.Error(), "faults: ")
	if rest, ok := strings.CutPrefix(msg, "entries"); ok {
		return prefix + rest
	}
	return prefix + ": " + msg
}

func kindList() string {
	var names []string
	for _, k := range faults.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

func (s *Scenario) validateScript(p *problems, path string, g Graph, names nameSet) {
	if s.Mode != ModeChandyLamport {
		p.unused(path, len(s.Script) > 0, "except by mode chandy-lamport")
		return
	}
	if len(s.Script) > maxSteps {
		p.add(path, "at most %d steps, not %d", maxSteps, len(s.Script))
	}
	linked := map[[2]string]bool{}
	for _, l := range g.Links {
		linked[[2]string{l.From, l.To}] = true
	}
	process := func(at, name string) {
		if name == "" {
			p.add(at, "is required")
		} else if !names.tasks[name] {
			p.add(at, "%s", names.notProcess(name))
		}
	}
	for i, st := range s.Script {
		at := fmt.Sprintf("%s[%d]", path, i)
		if !p.oneOf(at+".op", st.Op, StepOps) {
			continue
		}
		isSend := st.Op == StepSend
		hasProcess := st.Op == StepSnapshot || st.Op == StepCrash || st.Op == StepRestart
		if isSend {
			process(at+".from", st.From)
			process(at+".to", st.To)
			if st.Tokens <= 0 {
				p.add(at+".tokens", "must be > 0")
			}
			if names.tasks[st.From] && names.tasks[st.To] && !linked[[2]string{st.From, st.To}] {
				p.add(at, "no link from %q to %q", st.From, st.To)
			}
		} else {
			p.unused(at+".from", st.From != "", "by "+st.Op)
			p.unused(at+".to", st.To != "", "by "+st.Op)
			p.unused(at+".tokens", st.Tokens != 0, "by "+st.Op)
		}
		if hasProcess {
			process(at+".process", st.Process)
		} else {
			p.unused(at+".process", st.Process != "", "by "+st.Op)
		}
		if st.Op == StepAdvance {
			p.span(at+".by", st.By, true)
		} else {
			p.unused(at+".by", st.By != 0, "by "+st.Op)
		}
	}
	if len(p.list) > 0 {
		return // the checks below play the script, which needs sound steps
	}
	s.validateScriptOutages(p, path)
	s.validateScriptTokens(p, path)
}
