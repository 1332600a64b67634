package engine

import "time"

// KeyedSumGraph is the standard pipeline: a source with parallelism partitions, hashed by
// key into a keyed sum, forwarded into a sink of type sink. records is the number of records
// per partition (0: unbounded) and rate the records per second per partition (0: as fast as
// backpressure allows).
func KeyedSumGraph(parallelism int, records, rate int64, sink SinkType) Graph {
	return Graph{
		Operators: []Operator{
			{Name: "src", Parallelism: parallelism, Logic: Source{Partitions: parallelism, Records: records, RatePerSecond: rate, Keys: 16, Seed: 1}},
			{Name: "sum", Parallelism: parallelism, Logic: Aggregate{Fn: Sum}},
			{Name: "sink", Parallelism: parallelism, Logic: Sink{Type: sink}},
		},
		Edges: []Edge{
			{From: "src", To: "sum", Partitioning: Hash},
			{From: "sum", To: "sink", Partitioning: Forward},
		},
	}
}

// StandardConfig is the standard benchmark job: 8 sources, key by, 8 aggregators and 8
// two-phase-commit sinks, 1,000 records per second per source (unbounded), an aligned
// checkpoint every 100 ms of virtual time. Sinks trace what they write one buffer per
// sink.writes event.
func StandardConfig() Config {
	cfg := DefaultConfig(KeyedSumGraph(8, 0, 1000, TwoPhaseCommit))
	cfg.Checkpoint.Interval = 100 * time.Millisecond
	// Flink's default buffer timeout: a partly filled buffer waits up to 100 ms (barriers
	// flush it earlier), so buffers carry several records each.
	cfg.Network.FlushInterval = 100 * time.Millisecond
	// Flink's network buffers are 32 KiB, room for hundreds of records of this size, and a
	// channel gets 2 exclusive buffers plus a share of 8 floating ones per input gate.
	cfg.Network.BufferRecords = 256
	cfg.Network.Credits = 10
	cfg.SourcePoll = 10 * time.Millisecond
	cfg.BatchSinkWrites = true
	// Flink's state.storage.fs.memory-threshold: state this small goes into the metadata.
	cfg.InlineStateBytes = 20 << 10
	// One reader polling every 100 ms, as in the scenarios: enough to see the output grow
	// commit by commit, at a tenth of the default readers' traffic.
	cfg.Store.Readers = 1
	cfg.Store.ReadInterval = 100 * time.Millisecond
	return cfg
}
