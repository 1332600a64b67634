package scenarios

import (
	"math"
	"time"
)

// maxInputRecords bounds the records of all source subtasks together: records times the
// parallelism of every source. The reference model holds one expected row per input record,
// built before the run starts, so this is what bounds its memory (about a quarter of a
// kilobyte a record, so a few hundred megabytes at the bound). Every catalogue scenario and
// generated one reads a few tens of thousands at most.
const maxInputRecords = 1_000_000

// validateCost refuses a scenario whose run could never do what it asks, before any of its
// cost is paid. A source whose last record arrives after the run has ended cannot finish, so
// no run of it can pass; and its reference, built up front for every record, would cost
// memory in proportion to input the run never reads. Refusing it is a one-line error where
// there was silence. What one run may cost otherwise is bounded by its limits: max_events
// bounds the events kept for the checkers, and the bounds in validate.go the job's size.
func (s *Scenario) validateCost(p *problems, root string) {
	ends := runEndNanos(s)
	w := s.Workload
	switch w.Kind {
	case WorkloadKeyedSum, WorkloadPassThrough:
		if last := w.InputEndNanos(); last >= ends {
			p.add(root+".workload.records", "%d records a source subtask, one every %s, arrive until %s (stagger included), but the run ends at %s (fault_phase + heal_phase + 5/4 liveness_bound): fewer records, a shorter record_interval or stagger, or longer phases",
				w.Records, w.SourceInterval(), time.Duration(last), time.Duration(ends))
		}
		if inputs := s.inputRecords(); inputs > maxInputRecords {
			p.add(root+".workload.records", "%d records a source subtask make %d in all (times the parallelism of every source), more than the %d one run's reference may hold", w.Records, inputs, maxInputRecords)
		}
	case WorkloadTokens:
		each := w.RecordInterval.Nanos()
		if w.Transfers > 0 && each > 0 && int64(w.Transfers) >= ends/each {
			p.add(root+".workload.transfers", "%d transfers a process, one every %s, last until %s, but the run ends at %s (fault_phase + heal_phase + 5/4 liveness_bound): fewer transfers, a shorter record_interval or longer phases",
				w.Transfers, w.RecordInterval, saturatingSpan(int64(w.Transfers), each), time.Duration(ends))
		}
	}
}

// runEndNanos is the virtual time at which a run stops: the end of its liveness phase (see
// phases), which max_virtual_time may not cut short.
func runEndNanos(s *Scenario) int64 {
	ph := phases(s)
	return (ph.Fault + ph.Heal + ph.Liveness).Nanos()
}

// sourceRatePerSecond is the rate the engine's sources read at: a whole number of records a
// second, so a record_interval that does not divide a second is rounded to one that does,
// and one above a second reads one record a second.
func sourceRatePerSecond(w Workload) int64 {
	return max(int64(time.Second)/max(w.RecordInterval.Nanos(), 1), 1)
}

// SourceInterval is the time between two records of a source subtask at the engine's rate.
func (w Workload) SourceInterval() time.Duration {
	return time.Second / time.Duration(sourceRatePerSecond(w))
}

// lastRecordNanos is when the last record of a source subtask becomes available, as the
// engine's partition log computes it (record o at o/rate seconds, rounded up).
func lastRecordNanos(w Workload) int64 {
	rate := sourceRatePerSecond(w)
	offset := int64(max(w.Records, 1) - 1)
	return offset/rate*int64(time.Second) + ((offset%rate)*int64(time.Second)+rate-1)/rate
}

// inputRecords is how many records all source subtasks read together. Call it on a scenario
// whose topology is sound.
func (s *Scenario) inputRecords() int64 {
	var partitions int64
	for _, n := range s.Graph().Nodes {
		if n.Kind == NodeSource {
			partitions += int64(s.Workload.partitions(n))
		}
	}
	return partitions * int64(s.Workload.Records)
}

// saturatingSpan is count times each nanoseconds as a duration, or the longest duration when
// the product does not fit.
func saturatingSpan(count, each int64) time.Duration {
	if each > 0 && count > math.MaxInt64/each {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(count * each)
}

// InputEndNanos is when the last input of a dataflow or token workload arrives (0 for a
// script, or a workload without input): the last source subtask's last record at the
// engine's rate, or a process's last transfer.
func (w Workload) InputEndNanos() int64 {
	switch {
	case w.Records > 0:
		return lastRecordNanos(w) + w.Stagger.Nanos()
	case w.Transfers > 0:
		return saturatingSpan(int64(w.Transfers), w.RecordInterval.Nanos()).Nanoseconds()
	}
	return 0
}
