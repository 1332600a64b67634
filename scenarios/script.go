package scenarios

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
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
//
// Once the script has ended, periodic snapshots (checkpoint.interval, initiators) let the job
// finish; every global snapshot, scripted or not, is judged like any other.

// scriptOutage is a crash or a restart of a process's host, which the glue performs on the
// simulator at its time.
type scriptOutage struct {
	at      Duration
	restart bool
	process string
}

// tokenScript is what the engine does of s's script: the transfers and the snapshots, by
// task index.
func tokenScript(s *Scenario, index map[string]int) *tokens.Script {
	script := &tokens.Script{}
	var now Duration
	for _, st := range s.Script {
		at := time.Duration(now)
		switch st.Op {
		case StepSend:
			script.Transfers = append(script.Transfers, tokens.ScriptedTransfer{At: at, From: index[st.From], To: index[st.To], Amount: st.Tokens})
		case StepSnapshot:
			script.Snapshots = append(script.Snapshots, tokens.ScriptedSnapshot{At: at, Initiator: index[st.Process]})
		case StepAdvance:
			now += st.By
		}
	}
	script.End = time.Duration(now)
	return script
}

// scriptOutages is what the glue does of a script: its crashes and restarts, timed.
func scriptOutages(steps []Step) []scriptOutage {
	var outages []scriptOutage
	var now Duration
	for _, st := range steps {
		switch st.Op {
		case StepAdvance:
			now += st.By
		case StepCrash, StepRestart:
			outages = append(outages, scriptOutage{at: now, restart: st.Op == StepRestart, process: st.Process})
		}
	}
	return outages
}

// scriptLength is the clock's time after the last step.
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
func scheduleOutages(job *simenv.Job, outages []scriptOutage) {
	for _, o := range outages {
		host := job.Env.Host(o.process)
		job.Kernel.At(sim.Time(o.at), func() {
			switch {
			case !o.restart:
				host.Crash()
			case !host.Up():
				host.Start()
			}
		})
	}
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
