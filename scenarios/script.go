package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// A script is a hand-written Chandy-Lamport exercise: it replaces the random transfers of the
// tokens workload and, until it ends, the periodic snapshots. Its steps run in order on a
// clock that starts with the run at zero; advance moves the clock, every other step happens
// at the clock's current time:
//
//   - send: the sender makes the transfer then, or as soon as it holds the tokens (a process
//     never sends tokens it does not hold). A process makes its sends in script order.
//   - snapshot: the coordinator starts a snapshot at the process then, or as soon as fewer
//     than max_concurrent snapshots are in flight and no failover is under way.
//   - crash: the process's host goes down with it. The coordinator fails the job over to
//     the latest completed global snapshot: every process is rolled back to it, not only the
//     crashed one, and the sends made since are made again. Until the host is back the job
//     cannot be redeployed.
//   - restart: the host comes back, and the job resumes from that snapshot. A crashed process
//     that the script does not restart stays down until the fault phase ends.
//   - wait-snapshots: the clock stops until every snapshot asked for so far has completed or
//     aborted (one asked for by a coordinator incarnation that crashed is dropped with it),
//     then goes on from there: the steps after it come as long after the wait's end as their
//     advances say. A wait gives up when the rest of the script would no longer fit in the
//     fault phase (so that no step comes after the faults' end): the run stops there, with
//     the verdict limit and a reason that names the step and the snapshots it waited for.
//
// Once the script has ended, periodic snapshots (checkpoint.interval, initiators) let the job
// finish; every global snapshot, scripted or not, is judged like any other.

// scriptOutage is a crash or a restart of a process's host, which the glue performs on the
// simulator at its time.
type scriptOutage struct {
	at      Duration // on the script's clock
	wave    int      // how many wait-snapshots steps come before it
	restart bool
	process string
}

// tokenScript is what the engine does of s's script: the transfers and the snapshots, by
// task index.
func tokenScript(s *Scenario, index map[string]int) *tokens.Script {
	script := &tokens.Script{}
	var now Duration
	for _, st := range s.Script {
		at, wave := time.Duration(now), len(script.Waits)
		switch st.Op {
		case StepSend:
			script.Transfers = append(script.Transfers, tokens.ScriptedTransfer{At: at, From: index[st.From], To: index[st.To], Amount: st.Tokens, Wave: wave})
		case StepSnapshot:
			script.Snapshots = append(script.Snapshots, tokens.ScriptedSnapshot{At: at, Initiator: index[st.Process], Wave: wave})
		case StepAdvance:
			now += st.By
		case StepWaitSnapshots:
			script.Waits = append(script.Waits, at)
		}
	}
	script.End = time.Duration(now)
	if len(script.Waits) > 0 {
		script.Gates = tokens.NewGates() // one per run: engineConfig makes a fresh script for each
	}
	return script
}

// scriptOutages is what the glue does of a script: its crashes and restarts, timed.
func scriptOutages(steps []Step) []scriptOutage {
	var outages []scriptOutage
	var now Duration
	wave := 0
	for _, st := range steps {
		switch st.Op {
		case StepAdvance:
			now += st.By
		case StepWaitSnapshots:
			wave++
		case StepCrash, StepRestart:
			outages = append(outages, scriptOutage{at: now, wave: wave, restart: st.Op == StepRestart, process: st.Process})
		}
	}
	return outages
}

// scriptLength is the clock's time after the last step (the time its waits take not counted).
func scriptLength(steps []Step) Duration {
	var total Duration
	for _, st := range steps {
		if st.Op == StepAdvance {
			total += st.By
		}
	}
	return total
}

// scheduleOutages makes the script's crashes and restarts happen on the job's simulator. A
// restart finds the host up when something else (a fault's end, the heal) started it first.
// Those after a wait-snapshots step are timed from the wait's end, when the engine's script
// (gates, nil without waits) says it ended.
func scheduleOutages(job *simenv.Job, outages []scriptOutage, script *tokens.Script) {
	schedule := func(wave int) {
		for _, o := range outages {
			if o.wave != wave {
				continue
			}
			host := job.Env.Host(o.process)
			at, _ := script.When(wave, time.Duration(o.at))
			job.Kernel.At(sim.Time(at), func() {
				switch {
				case !o.restart:
					host.Crash()
				case !host.Up():
					host.Start()
				}
			})
		}
	}
	schedule(0)
	if script != nil && script.Gates != nil {
		script.Gates.OnEnd = func(k int, _ time.Duration) { schedule(k + 1) }
	}
}

// engineScript returns the script of cfg's token job, nil if it has none.
func engineScript(cfg *engine.Config) *tokens.Script {
	if len(cfg.Graph.Operators) != 1 {
		return nil
	}
	w, ok := cfg.Graph.Operators[0].Logic.(tokens.Workload)
	if !ok {
		return nil
	}
	return w.Script
}

// scheduleWaitBound makes a wait-snapshots step give up when the rest of the script would no
// longer fit in the fault phase (fault_phase less the script's time after the wait), so that
// the steps after it never come after the faults' end: it stops the run, and the reason it
// returns (empty while no wait gave up) names the step and the snapshots it still waited for.
func scheduleWaitBound(s *Scenario, job *simenv.Job, rec *trace.Recorder, script *tokens.Script) func() string {
	var reason string
	if script == nil {
		return func() string { return reason }
	}
	var steps []int // the script's wait-snapshots steps
	for i, st := range s.Script {
		if st.Op == StepWaitSnapshots {
			steps = append(steps, i)
		}
	}
	for k, at := range script.Waits {
		deadline := time.Duration(s.Limits.FaultPhase) - (script.End - at)
		job.Kernel.At(sim.Time(deadline), func() {
			if script.Gates.Ended() > k || reason != "" {
				return
			}
			reason = fmt.Sprintf("script[%d] (wait-snapshots) gave up at %s, when the rest of the script (%s) would no longer fit in the fault phase (%s); snapshots neither completed nor aborted: [%s]",
				steps[k], deadline, script.End-at, time.Duration(s.Limits.FaultPhase), strings.Join(unended(rec.Events()), " "))
			job.Kernel.Stop()
		})
	}
	return func() string { return reason }
}

// unended lists the snapshots asked for in events that neither completed nor aborted.
func unended(events []trace.Event) []string {
	ended := map[uint64]bool{}
	var asked []uint64
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointRequest:
			asked = append(asked, e.CP)
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			ended[e.CP] = true
		}
	}
	var open []string
	for _, cp := range asked {
		if !ended[cp] {
			open = append(open, fmt.Sprint(cp))
		}
	}
	return open
}

// validateScriptTokens checks that every send of the script can be made: it plays the sends
// in an order that never overdraws (each process sends as soon as it holds the tokens, with
// tokens arriving at once), which gets stuck only if every order does. The problem names the
// first send that can never be made.
func (s *Scenario) validateScriptTokens(p *problems, path string) {
	type send struct {
		step   int
		to     string
		tokens int64
	}
	balances := map[string]int64{}
	queues := map[string][]send{}
	var senders []string
	for i, st := range s.Script {
		if st.Op != StepSend {
			continue
		}
		if _, seen := queues[st.From]; !seen {
			senders = append(senders, st.From)
		}
		queues[st.From] = append(queues[st.From], send{step: i, to: st.To, tokens: st.Tokens})
	}
	initial := s.InitialBalances()
	balance := func(process string) int64 { return initial[process] + balances[process] }
	for progress := true; progress; {
		progress = false
		for _, from := range senders {
			for q := queues[from]; len(q) > 0 && balance(from) >= q[0].tokens; q = queues[from] {
				balances[from] -= q[0].tokens
				balances[q[0].to] += q[0].tokens
				queues[from] = q[1:]
				progress = true
			}
		}
	}
	first := -1
	for _, from := range senders {
		if q := queues[from]; len(q) > 0 && (first < 0 || q[0].step < first) {
			first = q[0].step
		}
	}
	if first >= 0 {
		st := s.Script[first]
		p.add(fmt.Sprintf("%s[%d]", path, first), "%s can never send %d tokens: it holds %d once no other send can be made",
			st.From, st.Tokens, balance(st.From))
	}
}

// validateScriptOutages checks that crashes and restarts alternate per process, and that the
// script ends within the fault phase, whose end heals what is still down.
func (s *Scenario) validateScriptOutages(p *problems, path string) {
	down := map[string]int{} // process -> step of the crash that holds it down
	for i, st := range s.Script {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch st.Op {
		case StepCrash:
			if crash, ok := down[st.Process]; ok {
				p.add(at, "%s is down already (crashed at step %d)", st.Process, crash)
			}
			down[st.Process] = i
		case StepRestart:
			if _, ok := down[st.Process]; !ok {
				p.add(at, "%s is not down: restart follows a crash of the same process", st.Process)
			}
			delete(down, st.Process)
		}
	}
	if total := scriptLength(s.Script); total > s.Limits.FaultPhase {
		p.add(path, "takes %s, longer than the fault phase (%s)", total, s.Limits.FaultPhase)
	}
}
