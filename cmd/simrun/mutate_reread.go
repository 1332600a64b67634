package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ckptsim/ckptsim/mutate"
)

// reportMutants is `simrun mutate -report FILE`: the report of the mutants a `-json` run
// wrote to FILE, also one cut short (its summary line, if any, is recomputed), judged by
// today's equivalent marks, so that a long sample is measured once and read again as the
// marks are reviewed.
func (a *app) reportMutants(path string) int {
	outcomes, err := readOutcomes(path)
	if err != nil {
		return a.fail("mutate: -report: %v", err)
	}
	equivalent := mutate.Equivalents()
	for _, out := range outcomes {
		out.Equivalent = equivalent[out.ID]
	}
	fmt.Fprintf(a.stdout, "reported from %s\n", path)
	writeMutateReport(a.stdout, outcomes, mutate.Tally(outcomes, 0, 0), nil)
	return exitOK
}

// readOutcomes reads the mutant lines of a mutate -json output, skipping its summary.
func readOutcomes(path string) ([]*mutate.Outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var outcomes []*mutate.Outcome
	scan := bufio.NewScanner(f)
	scan.Buffer(nil, 1<<20)
	for line := 1; scan.Scan(); line++ {
		var summary struct {
			Summary bool `json:"summary"`
		}
		if json.Unmarshal(scan.Bytes(), &summary) == nil && summary.Summary {
			continue // its counts are recomputed
		}
		var out mutate.Outcome
		if err := json.Unmarshal(scan.Bytes(), &out); err != nil {
			return nil, fmt.Errorf("%s:%d: not a line of mutate -json: %v", path, line, err)
		}
		if out.Mutant == nil || out.ID == "" {
			return nil, fmt.Errorf("%s:%d: not a line of mutate -json: no mutant", path, line)
		}
		outcomes = append(outcomes, &out)
	}
	if err := scan.Err(); err != nil {
		return nil, err
	}
	if len(outcomes) == 0 {
		return nil, fmt.Errorf("%s holds no mutant", path)
	}
	return outcomes, nil
}
