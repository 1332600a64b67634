// Package tokens is the token engine: the classic Chandy-Lamport snapshot algorithm
// (protocol/chandylamport) run on a token workload, beside the Flink-style barrier engine of
// package engine and on the same machinery.
//
// A job is one operator whose Logic is a Workload: its tasks are processes holding token
// balances that send tokens to one another over the Links, an arbitrary directed graph
// (cycles allowed). The processes are named like any tasks ("<operator>-<index>") or by the
// operator's TaskNames (N1, N2, ...), and start with Initial tokens each or with their own
// Balances. The Workload refers to a process by its task index; the trace, the snapshots
// and the snapshots' origins ("coordinator/<task>") by its id.
//
// Workload implements engine.JobKind, the engine's one seam for a job that snapshots its own
// way: engine.New takes such a graph as the kind's job, and the Runtime runs this package's
// coordinator (coordinator.go) and process logic (process.go) through engine.CoordinatorHost
// and engine.TaskHost instead of the protocol coordinator and protocol.Task. Everything else
// is the engine's: processes on its Env, channels with credits and buffers, the record
// catalog, snapshots in its format (a process's balance and position are its
// engine.KindState), durable storage, failover and the trace.
//
// The coordinator names every snapshot, from blocks of ids it reserves ahead with one
// durable write of the id counter each (so that no snapshot waits for a write to start, and
// ids grow across coordinator crashes), asks its initiator (and the processes the initiator
// cannot reach) to record it, collects the reports in a chandylamport.Collector, persists
// each global snapshot, restores the processes from the latest one on failover, and
// finishes the job when a snapshot shows every process done and nothing in flight. Markers
// travel as the engine's barrier events; a process records the tokens arriving on a channel
// until that channel's marker comes. Every global snapshot must account for the total:
// balances plus tokens recorded in flight (the checkers' cut property). A marker lost on the
// network leaves its snapshot incomplete at the receiver, which times out; a process that
// then hears of the origin's older snapshot after a newer one ignores the stale marker
// (chandylamport.ErrStaleMarker), and fails over only on markers no loss explains.
//
// A Script replaces the random transfers and periodic snapshots with a hand-written exercise
// (script.go). Its behaviour tests run whole jobs on scenarios/simenv (run_test.go,
// durable_test.go); workload_test.go checks the workload's arithmetic.
package tokens
