package tokens

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/engine"
)

// Workload is the token workload for the Chandy-Lamport algorithm (protocol/chandylamport):
// its tasks are processes holding balances that send tokens to their neighbours over an
// arbitrary directed graph (cycles allowed). Process p makes Transfers transfers, one every
// Interval; transfer n goes to the neighbour and carries the amount that a hash of (Seed, p,
// n) picks. Or, with a Script, the processes make the script's transfers instead, each at its
// time. The total is conserved, and every global snapshot must show it: balances plus tokens
// recorded in flight.
//
// A process never sends more tokens than it holds: a transfer it cannot cover waits until
// enough tokens have arrived. Every process makes its own transfers in order, and only its
// own transfers take tokens from it, so tokens arriving never stop a transfer from being
// made, and waiting never changes which transfers are made or what they carry. Hence the
// final balances do not depend on timing (ComputeReference), and if any order of the
// transfers completes them all, every run completes them all. Validation checks that one
// order does (tokenOutcome), so a workload whose processes could wait forever is refused.
//
// A Workload operator is the job's only operator and has no job-graph edges; its channels are
// Links. Its checkpoints are Chandy-Lamport snapshots, whatever Config.Checkpoint.Mode says:
// the coordinator asks the Initiators in turn to start one every SnapshotInterval (or, with a
// Script, starts the script's snapshots until the script ends, and then periodic ones),
// collects the processes' reports, persists the global snapshot and restores from the latest
// one on failover. The job finishes when a global snapshot shows every process done and
// nothing in flight; the periodic snapshots still under way then are aborted (job-finished).
type Workload struct {
	// Links are the directed channels, as pairs of task indices [from, to].
	Links [][2]int
	// Transfers is how many transfers each process with neighbours makes (0 with a Script).
	Transfers int64
	// Interval is the time between two transfers of a process; with a Script, how long a
	// process whose output is full waits before it tries again.
	Interval time.Duration
	// Initial is every process's starting balance, unless Balances gives it.
	Initial int64
	// Balances, if set, are the processes' starting balances by task index, one per task:
	// a course's exercise that starts one process with 1 token and another with none.
	Balances []int64
	// MaxAmount bounds the tokens of one transfer (1..MaxAmount).
	MaxAmount int64
	// Seed chooses destinations and amounts.
	Seed uint64
	// SnapshotInterval is the time between two snapshot initiations (with a Script, once the
	// script has ended), and between two checks for snapshots that take too long.
	SnapshotInterval time.Duration
	// Initiators are the task indices that take turns initiating snapshots (default: 0).
	Initiators []int
	// MaxConcurrent bounds the snapshots in flight at once (default 1).
	MaxConcurrent int
	// Script, if set, replaces the random transfers and, until it ends, the periodic
	// snapshots: a hand-written Chandy-Lamport exercise.
	Script *Script
}

// Kind implements engine.Logic.
func (Workload) Kind() string { return "tokens" }

// Channels implements engine.JobKind: the Links.
func (s Workload) Channels() [][2]int { return s.Links }

// Validate implements engine.JobKind (the engine has checked that the operator is the job's
// only one, without edges).
func (s Workload) Validate(op *engine.Operator) error {
	n := op.Parallelism
	seen := make(map[[2]int]bool)
	for _, l := range s.Links {
		switch {
		case l[0] < 0 || l[0] >= n || l[1] < 0 || l[1] >= n:
			return fmt.Errorf("link %v names a task outside 0..%d", l, n-1)
		case l[0] == l[1]:
			return fmt.Errorf("link %v is a self-loop", l)
		case seen[l]:
			return fmt.Errorf("link %v is listed twice", l)
		}
		seen[l] = true
	}
	for _, i := range s.Initiators {
		if i < 0 || i >= n {
			return fmt.Errorf("initiator %d outside 0..%d", i, n-1)
		}
	}
	switch {
	case s.Transfers < 0:
		return fmt.Errorf("negative transfers %d", s.Transfers)
	case s.Interval <= 0 || s.SnapshotInterval <= 0:
		return fmt.Errorf("Interval and SnapshotInterval must be positive")
	case s.MaxAmount < 1:
		return fmt.Errorf("MaxAmount %d, want at least 1", s.MaxAmount)
	case s.MaxConcurrent < 0:
		return fmt.Errorf("negative MaxConcurrent")
	case s.Initial < 0:
		return fmt.Errorf("negative Initial %d", s.Initial)
	case s.Balances != nil && len(s.Balances) != n:
		return fmt.Errorf("%d Balances for %d processes", len(s.Balances), n)
	}
	for p, b := range s.Balances {
		if b < 0 {
			return fmt.Errorf("negative balance %d of process %d", b, p)
		}
	}
	if s.Script != nil {
		if s.Transfers != 0 {
			return fmt.Errorf("a script replaces the random transfers: Transfers must be 0, not %d", s.Transfers)
		}
		if err := s.Script.validate(n, seen); err != nil {
			return err
		}
	}
	_, err := tokenOutcome(n, s)
	return err
}

func (s Workload) initiators() []int {
	if len(s.Initiators) == 0 {
		return []int{0}
	}
	return s.Initiators
}

func (s Workload) maxConcurrent() int { return max(s.MaxConcurrent, 1) }

// initial returns the starting balance of process p: Balances[p], or Initial.
func (s Workload) initial(p int) int64 {
	if s.Balances != nil {
		return s.Balances[p]
	}
	return s.Initial
}

// neighbours returns the task indices process p sends to, in Links order.
func (s Workload) neighbours(p int) []int {
	var out []int
	for _, l := range s.Links {
		if l[0] == p {
			out = append(out, l[1])
		}
	}
	return out
}

// transfer returns the destination (a task index) and amount of random transfer n of
// process p.
func (s Workload) transfer(p int, n int64, neighbours []int) (to int, amount int64) {
	h := mix64(s.Seed ^ mix64(uint64(p)+1) ^ mix64(uint64(n)<<1|1))
	return neighbours[h%uint64(len(neighbours))], 1 + int64((h>>32)%uint64(s.MaxAmount))
}

// mix64 is the splitmix64 finaliser, the engine's hash for sources, so that the transfers a
// seed picks are the same as before the token engine had a package of its own.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// tokenPrefix starts the record ids of the transfers of process task: transfer n is
// "<task>:<n>".
func tokenPrefix(task string) string { return task + ":" }

// Origins implements engine.JobKind: the record ids of process p's transfers start with
// "<p>:".
func (s Workload) Origins(op *engine.Operator) []string {
	out := make([]string, 0, op.Parallelism)
	for i := 0; i < op.Parallelism; i++ {
		out = append(out, tokenPrefix(op.TaskID(i)))
	}
	return out
}

// Reference implements engine.JobKind: the final balances of a tokens operator, and the
// total every global snapshot must account for. Which transfers are made and what they
// carry is fixed, so the balances do not depend on timing. Validation has checked that the
// transfers can all be made.
func (s Workload) Reference(op *engine.Operator) (*engine.Reference, error) {
	final, err := tokenOutcome(op.Parallelism, s)
	if err != nil {
		panic(fmt.Sprintf("tokens: operator %q: %v", op.Name, err))
	}
	ref := &engine.Reference{Balances: make(map[string]int64, op.Parallelism)}
	for p, b := range final {
		ref.Balances[op.TaskID(p)] = b
		ref.TokenTotal += b
	}
	return ref, nil
}

// NewCoordinator implements engine.JobKind.
func (s Workload) NewCoordinator(h *engine.CoordinatorHost) engine.KindCoordinator {
	return newCoordinator(h)
}

// NewTask implements engine.JobKind.
func (s Workload) NewTask(h *engine.TaskHost) engine.KindTask { return newProcess(h, s) }

// tokenOutcome plays the transfers of n processes in one order that never overdraws a
// balance: every process makes its next transfer as soon as it holds the tokens, with
// transfers arriving at once. It returns the final balances, or an error naming a transfer
// that could never be made. Since tokens arriving never stop a transfer from being made, if
// this order gets stuck every order does, and if it completes every run completes with
// these balances.
func tokenOutcome(n int, s Workload) ([]int64, error) {
	balances := make([]int64, n)
	plans := make([]tokenPlan, n)
	made := make([]int64, n)
	for p := range n {
		balances[p] = s.initial(p)
		plans[p] = s.plan(p)
	}
	for progress := true; progress; {
		progress = false
		for p := range n {
			for made[p] < plans[p].len() {
				to, amount := plans[p].transfer(made[p])
				if balances[p] < amount {
					break
				}
				balances[p] -= amount
				balances[to] += amount
				made[p]++
				progress = true
			}
		}
	}
	for p := range n {
		if made[p] < plans[p].len() {
			_, amount := plans[p].transfer(made[p])
			return nil, fmt.Errorf("process %d can never make its transfer %d of %d tokens: it holds %d once no other transfer can be made (raise the initial balance)",
				p, made[p], amount, balances[p])
		}
	}
	return balances, nil
}
