package engine

import (
	"fmt"
	"strconv"
	"time"
)

// Tokens is the token workload for the Chandy-Lamport algorithm (protocol/chandylamport):
// its tasks are processes holding balances that send tokens to their neighbours over an
// arbitrary directed graph (cycles allowed). Process p makes Transfers transfers, one every
// Interval; transfer n goes to the neighbour and carries the amount that a hash of (Seed, p,
// n) picks, whatever the process holds, so every run makes the same transfers and the final
// balances are known in advance (ComputeReference). The total is conserved, and every
// global snapshot must show it: balances plus tokens recorded in flight.
//
// A Tokens operator is the job's only operator and has no job-graph edges; its channels are
// Links. Its checkpoints are Chandy-Lamport snapshots, whatever Config.Checkpoint.Mode says:
// the coordinator asks the Initiators in turn to initiate one every SnapshotInterval,
// collects the processes' reports, persists the global snapshot and restores from the
// latest one on failover. The job finishes when a global snapshot shows every process done
// and nothing in flight.
type Tokens struct {
	// Links are the directed channels, as pairs of task indices [from, to].
	Links [][2]int
	// Transfers is how many transfers each process with neighbours makes.
	Transfers int64
	// Interval is the time between two transfers of a process.
	Interval time.Duration
	// Initial is every process's starting balance.
	Initial int64
	// MaxAmount bounds the tokens of one transfer (1..MaxAmount).
	MaxAmount int64
	// Seed chooses destinations and amounts.
	Seed uint64
	// SnapshotInterval is the time between two snapshot initiations.
	SnapshotInterval time.Duration
	// Initiators are the task indices that take turns initiating snapshots (default: 0).
	Initiators []int
	// MaxConcurrent bounds the snapshots in flight at once (default 1).
	MaxConcurrent int
}

func (Tokens) Kind() string              { return "tokens" }
func (Tokens) inputs() (least, most int) { return 0, 0 }
func (Tokens) outputs() bool             { return false }

func (s Tokens) validate(g *Graph, op *Operator) error {
	if len(g.Operators) != 1 || len(g.Edges) != 0 {
		return fmt.Errorf("a tokens operator must be the job's only operator, without edges (its channels are Links)")
	}
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
	}
	return nil
}

func (s Tokens) initiators() []int {
	if len(s.Initiators) == 0 {
		return []int{0}
	}
	return s.Initiators
}

func (s Tokens) maxConcurrent() int { return max(s.MaxConcurrent, 1) }

// neighbours returns the task indices process p sends to, in Links order.
func (s Tokens) neighbours(p int) []int {
	var out []int
	for _, l := range s.Links {
		if l[0] == p {
			out = append(out, l[1])
		}
	}
	return out
}

// transfer returns the destination (a task index) and amount of transfer n of process p.
func (s Tokens) transfer(p int, n int64, neighbours []int) (to int, amount int64) {
	h := mix64(s.Seed ^ mix64(uint64(p)+1) ^ mix64(uint64(n)<<1|1))
	return neighbours[h%uint64(len(neighbours))], 1 + int64((h>>32)%uint64(s.MaxAmount))
}

// tokenRID names transfer n of process task.
func tokenRID(task string, n int64) string { return task + ":" + strconv.FormatInt(n, 10) }

// tokenReference computes the final balances of a tokens operator: the transfers are fixed,
// so the balances do not depend on timing.
func tokenReference(op *Operator, s Tokens) (balances map[string]int64, total int64) {
	balances = make(map[string]int64, op.Parallelism)
	for p := 0; p < op.Parallelism; p++ {
		balances[TaskID(op.Name, p)] += s.Initial
		total += s.Initial
		nb := s.neighbours(p)
		if len(nb) == 0 {
			continue
		}
		for n := int64(0); n < s.Transfers; n++ {
			to, amount := s.transfer(p, n, nb)
			balances[TaskID(op.Name, p)] -= amount
			balances[TaskID(op.Name, to)] += amount
		}
	}
	return balances, total
}
