package mutate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Run is the part of one run's JSON line (simrun sweep -json, simrun explore -json) that a
// classification reads.
type Run struct {
	Scenario   string      `json:"scenario"`
	Seed       uint64      `json:"seed"`
	Verdict    string      `json:"verdict"`
	Unexpected bool        `json:"unexpected"`
	TraceHash  string      `json:"trace_hash"`
	Violations []Violation `json:"violations"`
}

// Violation is the part of a run's violation that a classification reads.
type Violation struct {
	Property string `json:"property"`
	Message  string `json:"message"`
}

// key names a run of a sweep: its scenario and seed.
func (r *Run) key() string { return fmt.Sprintf("%s/%d", r.Scenario, r.Seed) }

// ParseRuns reads the runs of a sweep's or an exploration's JSON lines. The sweep's summary
// line and the exploration's last line say no run and are skipped; a line that is not JSON
// is an error, since a mutated simrun that prints garbage must not pass for a clean one.
func ParseRuns(r io.Reader) ([]Run, error) {
	var runs []Run
	scan := bufio.NewScanner(r)
	scan.Buffer(nil, 64<<20)
	for scan.Scan() {
		if len(scan.Bytes()) == 0 {
			continue
		}
		var other struct {
			Summary bool            `json:"summary"`
			Explore json.RawMessage `json:"explore"`
		}
		if err := json.Unmarshal(scan.Bytes(), &other); err != nil {
			return runs, fmt.Errorf("mutate: a line that is not JSON: %v", err)
		}
		if other.Summary || other.Explore != nil {
			continue
		}
		var run Run
		if err := json.Unmarshal(scan.Bytes(), &run); err != nil {
			return runs, fmt.Errorf("mutate: a line that is not a run: %v", err)
		}
		runs = append(runs, run)
	}
	return runs, scan.Err()
}

// Hashes maps each run of a sweep to its trace hash: the correct build's, to tell a
// mutant that changed no run from one whose change no property saw.
func Hashes(runs []Run) map[string]string {
	out := make(map[string]string, len(runs))
	for i := range runs {
		out[runs[i].key()] = runs[i].TraceHash
	}
	return out
}

// Changed reports whether any run of runs traced otherwise than the same run in baseline
// (Hashes of the correct build's sweep), or is not in it.
func Changed(runs []Run, baseline map[string]string) bool {
	for i := range runs {
		if baseline[runs[i].key()] != runs[i].TraceHash {
			return true
		}
	}
	return false
}
