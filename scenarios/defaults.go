package scenarios

import "github.com/ckptsim/ckptsim/protocol"

// Defaults for settings a scenario leaves out. Parse and the catalogue apply them, so a
// scenario that reaches a run (and every artifact) states them explicitly.
const (
	defaultParallelism    = 1
	defaultStages         = 1
	defaultInputs         = 2
	defaultProcesses      = 3
	defaultRecords        = 200
	defaultKeys           = 8
	defaultInitialTokens  = 100
	defaultMaxTransfer    = 5
	defaultMaxConcurrent  = 1
	defaultSwarmMaxFaults = 6
	defaultSeedCount      = 10
	defaultRecordInterval = Duration(10_000_000)    // 10ms
	defaultInterval       = Duration(100_000_000)   // 100ms
	defaultTimeout        = Duration(1_000_000_000) // 1s
	defaultAlignmentBound = Duration(20_000_000)    // 20ms
	defaultFaultPhase     = Duration(3_000_000_000) // 3s
	defaultHealPhase      = Duration(500_000_000)   // 500ms
	defaultLivenessBound  = Duration(5_000_000_000) // 5s
)

// DefaultMaxEvents is a run's event limit when its scenario sets none (limits.max_events).
const DefaultMaxEvents = 2_000_000

// WithDefaults returns a copy of s with its defaults filled in, not validated: what
// Complete would run, for a generator that draws past an incomplete scenario.
func (s *Scenario) WithDefaults() *Scenario {
	c := s.Clone()
	c.applyDefaults()
	return c
}

// applyDefaults fills in what s leaves out. It only ever replaces zero values, so applying it
// twice changes nothing, and it touches only the settings that s's kinds use, so validation
// can still reject a setting that does not belong.
func (s *Scenario) applyDefaults() {
	t := &s.Topology
	switch t.Kind {
	case TopologyPipeline:
		t.Stages = orDefault(t.Stages, defaultStages)
	case TopologyFanInUnion:
		t.Inputs = orDefault(t.Inputs, defaultInputs)
	case TopologyCycle:
		if s.Mode == ModeChandyLamport {
			t.Processes = orDefault(t.Processes, defaultProcesses)
		}
	}
	if t.Kind != TopologyExplicit && !(t.Kind == TopologyCycle && s.Mode == ModeChandyLamport) {
		t.Parallelism = orDefault(t.Parallelism, defaultParallelism)
	}
	for i := range t.Nodes {
		t.Nodes[i].Parallelism = orDefault(t.Nodes[i].Parallelism, defaultParallelism)
	}
	for i := range t.Links {
		t.Links[i].Partition = orDefault(t.Links[i].Partition, PartitionForward)
	}

	w := &s.Workload
	switch w.Kind {
	case WorkloadKeyedSum:
		w.Records = orDefault(w.Records, defaultRecords)
		w.Keys = orDefault(w.Keys, defaultKeys)
		w.RecordInterval = orDefault(w.RecordInterval, defaultRecordInterval)
	case WorkloadPassThrough:
		w.Records = orDefault(w.Records, defaultRecords)
		w.RecordInterval = orDefault(w.RecordInterval, defaultRecordInterval)
	case WorkloadTokens:
		if w.InitialTokens == nil {
			w.InitialTokens = TokenCount(defaultInitialTokens) // absent; a zero written is kept
		}
		w.MaxTransfer = orDefault(w.MaxTransfer, defaultMaxTransfer)
		w.RecordInterval = orDefault(w.RecordInterval, defaultRecordInterval)
	}

	c := &s.Checkpoint
	c.Interval = orDefault(c.Interval, defaultInterval)
	c.Timeout = orDefault(c.Timeout, defaultTimeout)
	c.MaxConcurrent = orDefault(c.MaxConcurrent, defaultMaxConcurrent)
	if c.TolerableFailures == nil {
		// Written in, so that a file or an artifact says which limit its runs had.
		c.TolerableFailures = Tolerating(protocol.DefaultConfig().TolerableFailures)
	}
	if s.Mode == ModeAlignedWithTimeout {
		c.AlignmentTimeout = orDefault(c.AlignmentTimeout, defaultAlignmentBound)
	}

	if s.Swarm != nil {
		s.Swarm.MaxFaults = orDefault(s.Swarm.MaxFaults, defaultSwarmMaxFaults)
	}

	l := &s.Limits
	l.FaultPhase = orDefault(l.FaultPhase, defaultFaultPhase)
	l.HealPhase = orDefault(l.HealPhase, defaultHealPhase)
	l.LivenessBound = orDefault(l.LivenessBound, defaultLivenessBound)
	l.MaxVirtualTime = orDefault(l.MaxVirtualTime, l.FaultPhase+l.HealPhase+2*l.LivenessBound)
	l.MaxEvents = orDefault(l.MaxEvents, DefaultMaxEvents)

	if s.Seeds == nil {
		s.Seeds = &SeedRange{First: 1, Last: defaultSeedCount}
	}
}

func orDefault[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}
