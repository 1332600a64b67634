package engine

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// Config is one job: its graph, its checkpointing policy and the knobs of the engine's
// runtime. All durations are virtual time.
type Config struct {
	Graph Graph
	// Checkpoint is the protocol's policy (mode, interval, timeout, ...). Its Random field,
	// if nil, is filled from Env.Rand("coordinator").
	Checkpoint protocol.Config
	Network    NetworkConfig
	Store      StoreConfig
	// RecordCost is the processing time of one record in one task: what makes a slow
	// operator back-pressure its inputs.
	RecordCost time.Duration
	// SourcePoll is how often a source that caught up with its rate-limited log polls it
	// again, which batches records the way a real source's fetches do.
	SourcePoll time.Duration
	// RestartDelay is the pause between cancelling the tasks of a failed attempt and
	// deploying the next one (and between deployment retries while a host is down).
	RestartDelay time.Duration
	// FailureDetection is how long it takes the coordinator to notice that a task died
	// (a heartbeat timeout).
	FailureDetection time.Duration
	// StorageRetry is the pause before retrying a failed read of checkpoint metadata.
	StorageRetry time.Duration
	// VerifyWrites reads every snapshot and metadata write back before relying on it, so
	// that torn and corrupted writes fail at once (see writeDurably).
	VerifyWrites bool
	// InlineStateBytes is the size up to which a task's snapshot is not written to storage
	// but sent to the coordinator with its acknowledgement and stored inside the
	// checkpoint's metadata (inline.go); 0 writes every snapshot to storage. Token
	// processes (Chandy-Lamport) always write theirs: they have no acknowledgement to carry it.
	InlineStateBytes int
	// TraceRecords adds record.send and record.recv events (detailed traces).
	TraceRecords bool
	// TraceSinkWrites emits sink.write for every record a sink writes. The exactly-once
	// checker needs it; benchmarks may turn it off.
	TraceSinkWrites bool
	// BatchSinkWrites, with TraceSinkWrites, traces the records of each buffer a sink
	// writes as one sink.writes event (their ids and values listed in attributes) instead
	// of one sink.write per record: the same information for the checkers, at a fraction
	// of the cost, since per-record events otherwise make up most of a trace. Faults
	// triggered by the n-th sink.write count batches then, under sink.writes.
	BatchSinkWrites bool
	// MaxPendingTransactions bounds the pre-committed transactions a two-phase-commit sink
	// holds for checkpoints whose fate it has not heard (DefaultMaxPendingTransactions when
	// zero). A snapshot past the bound is declined (too-many-pending), as Flink's Kafka
	// producer declines one when its pool of transactional producers is used up.
	MaxPendingTransactions int
	// Incremental takes incremental snapshots of keyed state (incremental.go): a snapshot
	// uploads only the runs its task's state gained since the task's last completed
	// checkpoint, as shared pieces, and refers to the earlier pieces it still needs.
	Incremental bool
	// CompactAfter is how many runs an incremental snapshot's keyed state may consist of
	// before the task merges them into one (DefaultCompactAfter when zero).
	CompactAfter int
}

// compactAfter is the bound incremental snapshots keep: CompactAfter, or
// DefaultCompactAfter when it is zero.
func (c Config) compactAfter() int {
	if c.CompactAfter != 0 {
		return c.CompactAfter
	}
	return DefaultCompactAfter
}

// DefaultCompactAfter is how many runs an incremental snapshot may consist of unless
// Config.CompactAfter says otherwise; MaxCompactAfter is the largest it may say.
const (
	DefaultCompactAfter = 4
	MaxCompactAfter     = 64
)

// PendingTransactionsBound is the bound a two-phase-commit sink keeps: MaxPendingTransactions,
// or DefaultMaxPendingTransactions when it is zero.
func (c Config) PendingTransactionsBound() int {
	if c.MaxPendingTransactions != 0 {
		return c.MaxPendingTransactions
	}
	return DefaultMaxPendingTransactions
}

// DefaultMaxPendingTransactions is a two-phase-commit sink's bound on pending transactions
// unless Config.MaxPendingTransactions says otherwise; MaxPendingTransactionsLimit is the
// largest it may say.
const (
	DefaultMaxPendingTransactions = 64
	MaxPendingTransactionsLimit   = protocol.MaxPendingCheckpointsLimit
)

// NetworkConfig shapes the data channels between tasks.
type NetworkConfig struct {
	// BufferRecords is how many records fit in one network buffer.
	BufferRecords int
	// Credits is how many buffers a receiver can hold per input channel: a sender sends a
	// data buffer only against a credit, and the receiver returns the credit when it has
	// consumed the buffer. A blocked or slow receiver therefore stalls its senders.
	Credits int
	// QueueBuffers is how many full buffers an output channel may queue for lack of credit
	// before the task stops producing (backpressure reaches the task).
	QueueBuffers int
	// FlushInterval is how long a partly filled buffer may wait before it is sent.
	FlushInterval time.Duration
}

// StoreConfig shapes the external store and its readers.
type StoreConfig struct {
	// Latency is the one-way delay between a sink or reader and the store, on top of the
	// network's; 0 is allowed.
	Latency time.Duration
	// TxnTimeout is the store's transaction timeout (0: never).
	TxnTimeout time.Duration
	// Readers is how many reader clients poll the store's visible output. A job without a
	// Sink operator (a JobKind's job, say) writes nothing to the store, so it runs none,
	// whatever Readers says: polls of an empty store would fill its trace with sink.read
	// events that show nothing.
	Readers int
	// ReadInterval is how often each reader polls.
	ReadInterval time.Duration
	// RetryInterval is how long a sink waits for the store's answer to a request before it
	// sends the request again (the store may have been down).
	RetryInterval time.Duration
}

// DefaultConfig returns a configuration for graph g with an aligned checkpoint every 100 ms.
func DefaultConfig(g Graph) Config {
	cp := protocol.DefaultConfig()
	cp.Interval = 100 * time.Millisecond
	cp.Timeout = 2 * time.Second
	cp.RetainedCheckpoints = 2
	return Config{
		Graph:      g,
		Checkpoint: cp,
		Network: NetworkConfig{
			BufferRecords: 32,
			Credits:       4,
			QueueBuffers:  4,
			FlushInterval: 5 * time.Millisecond,
		},
		Store: StoreConfig{
			Latency:       time.Millisecond,
			TxnTimeout:    0,
			Readers:       2,
			ReadInterval:  20 * time.Millisecond,
			RetryInterval: 20 * time.Millisecond,
		},
		RecordCost:       10 * time.Microsecond,
		SourcePoll:       5 * time.Millisecond,
		RestartDelay:     50 * time.Millisecond,
		FailureDetection: 20 * time.Millisecond,
		StorageRetry:     20 * time.Millisecond,
		TraceSinkWrites:  true,
		VerifyWrites:     true,
	}
}

// Validate checks the configuration, naming the offending field, operator or edge.
func (c *Config) Validate() error {
	if err := c.Checkpoint.Validate(); err != nil {
		return err
	}
	mode := c.Checkpoint.Mode
	if err := c.Graph.validate(mode == protocol.ModeUnaligned); err != nil {
		return err
	}
	n := c.Network
	switch {
	case n.BufferRecords < 1:
		return fmt.Errorf("engine: config: Network.BufferRecords %d, want at least 1", n.BufferRecords)
	case n.Credits < 1:
		return fmt.Errorf("engine: config: Network.Credits %d, want at least 1", n.Credits)
	case n.QueueBuffers < 1:
		return fmt.Errorf("engine: config: Network.QueueBuffers %d, want at least 1", n.QueueBuffers)
	case n.FlushInterval <= 0:
		return fmt.Errorf("engine: config: Network.FlushInterval must be positive")
	case c.RecordCost < 0:
		return fmt.Errorf("engine: config: RecordCost must not be negative")
	case c.SourcePoll <= 0:
		return fmt.Errorf("engine: config: SourcePoll must be positive")
	case c.RestartDelay <= 0:
		return fmt.Errorf("engine: config: RestartDelay must be positive")
	case c.FailureDetection < 0:
		return fmt.Errorf("engine: config: FailureDetection must not be negative")
	case c.MaxPendingTransactions < 0 || c.MaxPendingTransactions > MaxPendingTransactionsLimit:
		return fmt.Errorf("engine: config: MaxPendingTransactions %d, want 0 to %d", c.MaxPendingTransactions, MaxPendingTransactionsLimit)
	case c.CompactAfter < 0 || c.CompactAfter > MaxCompactAfter:
		return fmt.Errorf("engine: config: CompactAfter %d, want 0 to %d", c.CompactAfter, MaxCompactAfter)
	case c.InlineStateBytes < 0 || c.InlineStateBytes > MaxInlineStateBytes:
		return fmt.Errorf("engine: config: InlineStateBytes %d, want 0 to %d", c.InlineStateBytes, MaxInlineStateBytes)
	case c.StorageRetry <= 0:
		return fmt.Errorf("engine: config: StorageRetry must be positive")
	case c.Store.Latency < 0 || c.Store.TxnTimeout < 0:
		return fmt.Errorf("engine: config: Store.Latency and Store.TxnTimeout must not be negative")
	case c.Store.Readers < 0:
		return fmt.Errorf("engine: config: Store.Readers must not be negative")
	case c.Store.Readers > 0 && c.Store.ReadInterval <= 0:
		return fmt.Errorf("engine: config: Store.ReadInterval must be positive with readers")
	case c.Store.RetryInterval <= 0:
		return fmt.Errorf("engine: config: Store.RetryInterval must be positive")
	}
	return nil
}

// readers returns how many reader clients the job runs: Store.Readers, or none for a job
// without a sink.
func (c *Config) readers() int {
	if !c.Graph.hasSink() {
		return 0
	}
	return c.Store.Readers
}
