package faults

import (
	"fmt"
	"slices"
)

// Link is a directed link between two endpoints: task ids or Coordinator.
type Link struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (l Link) String() string { return l.From + "->" + l.To }

// System describes what faults can hit, by name: the swarm draws from it, and a schedule can be
// checked against it. The scenario glue builds it from its job graph and cluster.
type System struct {
	Tasks []string // task ids, such as sum-2
	// Operators are the operators a rescale may name.
	Operators []string
	// LateTasks are tasks a rescale of the schedule may start: faults may name them as they
	// name Tasks, though the system starts without them.
	LateTasks []string
	Hosts     []string // host names
	// Channels are the data channels, task to task; records and barriers travel on them.
	// Control links between the coordinator and every task are implied (see ControlLinks).
	Channels []Link
	// Stores are the durable stores (checkpoint data, completed-checkpoint metadata).
	Stores []string
	// ExternalStore says whether a two-phase-commit sink writes to an external store.
	ExternalStore bool
	// SinkWrites says whether sinks of any kind write to the external store, which the
	// external.write-* faults hit.
	SinkWrites bool
	// FaultPhase is the length of the fault phase; swarm faults start and end inside it.
	FaultPhase Duration
}

// Validate checks that names are valid and distinct, that channels join two different known
// tasks, and that the fault phase has a length.
func (s System) Validate() error {
	if err := checkNames("tasks", s.Tasks); err != nil {
		return err
	}
	if slices.Contains(s.Tasks, Coordinator) {
		return fmt.Errorf("faults: system: tasks: %q names the coordinator", Coordinator)
	}
	if err := checkNames("hosts", s.Hosts); err != nil {
		return err
	}
	if err := checkNames("stores", s.Stores); err != nil {
		return err
	}
	for i, c := range s.Channels {
		if !slices.Contains(s.Tasks, c.From) || !slices.Contains(s.Tasks, c.To) || c.From == c.To {
			return fmt.Errorf("faults: system: channels[%d]: %s must join two different tasks", i, c)
		}
	}
	if s.FaultPhase < 1 || s.FaultPhase > MaxDurationNanos {
		return fmt.Errorf("faults: system: fault phase must be in [1, %d] ns, got %d", MaxDurationNanos, s.FaultPhase)
	}
	return nil
}

func checkNames(what string, names []string) error {
	for i, n := range names {
		if !validName(n) {
			return fmt.Errorf("faults: system: %s[%d]: invalid name %q", what, i, n)
		}
		if slices.Index(names, n) != i {
			return fmt.Errorf("faults: system: %s[%d]: %q listed twice", what, i, n)
		}
	}
	return nil
}

// ControlLinks returns the links between the coordinator and each task, both ways, in task
// order: triggers and notifications go out on them, acknowledgements come back.
func (s System) ControlLinks() []Link {
	links := make([]Link, 0, 2*len(s.Tasks))
	for _, t := range s.Tasks {
		links = append(links, Link{Coordinator, t}, Link{t, Coordinator})
	}
	return links
}

// endpoint reports whether name is a task of s or the coordinator.
func (s System) endpoint(name string) bool {
	return name == Coordinator || s.task(name)
}

// task reports whether name is a task of the system, from the start or after a rescale.
func (s System) task(name string) bool {
	return slices.Contains(s.Tasks, name) || slices.Contains(s.LateTasks, name)
}

// CheckSchedule checks that sched can happen to s: its names (CheckNames) and its times
// (CheckTimes). It assumes sched is valid (see Schedule.Validate) and names the first
// offending field.
func (s System) CheckSchedule(sched Schedule) error {
	if err := s.CheckNames(sched); err != nil {
		return err
	}
	return s.CheckTimes(sched)
}

// CheckNames checks that every name in sched exists in s: tasks, hosts, link endpoints,
// stores and trigger tasks; that channel breaks and data faults name data channels; and that
// external-store faults have a store to hit. It assumes sched is valid (see
// Schedule.Validate) and names the first offending field.
func (s System) CheckNames(sched Schedule) error {
	for i, e := range sched.Entries {
		path := fmt.Sprintf("entries[%d]", i)
		f := e.Fault
		switch {
		case f.Task != "" && !s.task(f.Task):
			return fieldErr(path+".fault.task", "no task %q in the system", f.Task)
		case f.Host != "" && !slices.Contains(s.Hosts, f.Host):
			return fieldErr(path+".fault.host", "no host %q in the system", f.Host)
		case f.From != "" && !s.endpoint(f.From):
			return fieldErr(path+".fault.from", "no endpoint %q in the system", f.From)
		case f.To != "" && !s.endpoint(f.To):
			return fieldErr(path+".fault.to", "no endpoint %q in the system", f.To)
		case f.Operator != "" && !slices.Contains(s.Operators, f.Operator):
			return fieldErr(path+".fault.operator", "no operator %q in the system", f.Operator)
		case f.Store != "" && !slices.Contains(s.Stores, f.Store):
			return fieldErr(path+".fault.store", "no store %q in the system", f.Store)
		case (f.Kind == NetBreak || f.Kind.dataFault()) && f.From != "" && f.To != "" &&
			!slices.Contains(s.Channels, Link{f.From, f.To}):
			return fieldErr(path+".fault.to", "%s needs a data channel, and %s->%s is none", f.Kind, f.From, f.To)
		case (f.Kind == ExternalTimeout || f.Kind == ExternalCommitFail) && !s.ExternalStore:
			return fieldErr(path+".fault.kind", "%s needs an external store, and the system has none", f.Kind)
		case (f.Kind == ExternalWriteFail || f.Kind == ExternalWriteLost) && !s.SinkWrites:
			return fieldErr(path+".fault.kind", "%s needs a sink that writes, and the system has none", f.Kind)
		case e.Trigger.Task != "" && !s.endpoint(e.Trigger.Task):
			return fieldErr(path+".trigger.task", "no task %q in the system", e.Trigger.Task)
		}
	}
	return nil
}
