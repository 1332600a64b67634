package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// nameSet holds the task, host and process names a fault or step may refer to.
type nameSet struct {
	tasks map[string]bool
	hosts map[string]bool
	hint  string // a few example names for error messages
}

func newNameSet(g Graph, chandyLamport bool) nameSet {
	n := nameSet{tasks: map[string]bool{}, hosts: map[string]bool{}}
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
	n.hint = fmt.Sprintf("%s are named like %s; hosts host-0..host-%d", kind, strings.Join(examples, ", "), len(n.hosts)-1)
	return n
}

func (s *Scenario) validateBalances(p *problems, path string, names nameSet) {
	seen := map[string]bool{}
	for i, b := range s.Workload.Balances {
		at := fmt.Sprintf("%s[%d]", path, i)
		if !names.tasks[b.Process] {
			p.add(at+".process", "%q is not a task of the topology (%s)", b.Process, names.hint)
		} else if seen[b.Process] {
			p.add(at+".process", "%q has two balances", b.Process)
		}
		seen[b.Process] = true
		if b.Tokens < 0 {
			p.add(at+".tokens", "must be >= 0")
		}
	}
}

func (s *Scenario) validateFaults(p *problems, root string, names nameSet) {
	if len(s.Faults) > 0 && s.Swarm != nil {
		p.add(root+".swarm", "give either faults or swarm, not both")
	}
	if len(s.Faults) > maxFaults {
		p.add(root+".faults", "at most %d faults, not %d", maxFaults, len(s.Faults))
	}
	for i, f := range s.Faults {
		f.validate(p, fmt.Sprintf("%s.faults[%d]", root, i), names)
	}
	if s.Swarm == nil {
		return
	}
	path := root + ".swarm"
	seen := map[string]bool{}
	for i, kind := range s.Swarm.Kinds {
		at := fmt.Sprintf("%s.kinds[%d]", path, i)
		if p.oneOf(at, kind, FaultKinds()) && seen[kind] {
			p.add(at, "%q is listed twice", kind)
		}
		seen[kind] = true
	}
	p.intIn(path+".max_faults", s.Swarm.MaxFaults, 1, maxFaults)
}

func (f Fault) validate(p *problems, path string, names nameSet) {
	kind, ok := lookupFaultKind(f.Kind)
	if !p.oneOf(path+".kind", f.Kind, FaultKinds()) || !ok {
		return
	}
	uses := func(field string) bool {
		return slices.Contains(kind.requires, field) || slices.Contains(kind.allows, field)
	}
	requires := func(field string) bool { return slices.Contains(kind.requires, field) }
	check := func(field string, isSet bool) bool {
		switch {
		case !uses(field):
			p.unused(path+"."+field, isSet, "by "+f.Kind)
			return false
		case requires(field) && !isSet:
			p.add(path+"."+field, "is required by %s", f.Kind)
			return false
		}
		return isSet
	}
	if check(fieldTarget, f.Target != "") {
		f.validateTarget(p, path+".target", names)
	}
	if !uses(fieldLink) {
		p.unused(path+".from", f.From != "", "by "+f.Kind)
		p.unused(path+".to", f.To != "", "by "+f.Kind)
	} else {
		if f.From != "" && !names.tasks[f.From] {
			p.add(path+".from", "%q is not a task (%s)", f.From, names.hint)
		}
		if f.To != "" && !names.tasks[f.To] {
			p.add(path+".to", "%q is not a task (%s)", f.To, names.hint)
		}
	}
	if check(fieldStore, f.Store != "") {
		p.oneOf(path+".store", f.Store, Stores)
	}
	if check(fieldMessage, f.Message != "") {
		p.oneOf(path+".message", f.Message, ControlMessages)
	}
	if check(fieldDuration, f.Duration != 0) {
		p.span(path+".duration", f.Duration, true)
	}
	if check(fieldDelay, f.Delay != 0) {
		p.span(path+".delay", f.Delay, true)
	}
	if check(fieldRestartAfter, f.RestartAfter != 0) {
		p.span(path+".restart_after", f.RestartAfter, false)
	}
	if check(fieldCount, f.Count != 0) {
		p.intIn(path+".count", f.Count, 1, 1_000_000)
	}
	check(fieldOneWay, f.OneWay)
	if f.OneWay && f.From == "" && f.To == "" {
		p.add(path+".one_way", "a one-way partition needs from or to")
	}
	if check(fieldSkew, f.SkewPPM != 0) && (f.SkewPPM < -500_000 || f.SkewPPM > 500_000) {
		p.add(path+".skew_ppm", "must be between -500000 and 500000, not %d", f.SkewPPM)
	}
	f.Trigger.validate(p, path+".trigger", names)
}

func (f Fault) validateTarget(p *problems, path string, names nameSet) {
	switch f.Kind {
	case FaultCrashTask:
		if !names.tasks[f.Target] {
			p.add(path, "%q is not a task (%s)", f.Target, names.hint)
		}
	case FaultCrashHost:
		if !names.hosts[f.Target] {
			p.add(path, "%q is not a host (%s)", f.Target, names.hint)
		}
	default:
		if !names.tasks[f.Target] && !names.hosts[f.Target] && f.Target != "coordinator" {
			p.add(path, "%q is not a task, a host or coordinator (%s)", f.Target, names.hint)
		}
	}
}

func (t Trigger) validate(p *problems, path string, names nameSet) {
	p.span(path+".at", t.At, false)
	p.span(path+".after", t.After, false)
	if t.On == nil {
		p.unused(path+".after", t.After != 0, "without on")
		return
	}
	if t.At != 0 {
		p.add(path+".at", "give either at or on, not both")
	}
	if t.On.Kind == "" {
		p.add(path+".on.kind", "is required (a trace event kind such as snapshot.ack)")
	} else if strings.ContainsAny(t.On.Kind, " \t\n") {
		p.add(path+".on.kind", "%q is not an event kind", t.On.Kind)
	}
	if t.On.Task != "" && t.On.Task != "coordinator" && !names.tasks[t.On.Task] {
		p.add(path+".on.task", "%q is not a task (%s)", t.On.Task, names.hint)
	}
	p.intIn(path+".on.nth", t.On.Nth, 1, 1_000_000)
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
			p.add(at, "%q is not a process (%s)", name, names.hint)
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
}
