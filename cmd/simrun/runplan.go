package main

import (
	"os"

	"github.com/ckptsim/ckptsim/scenarios"
)

// openTrace creates the file that -trace names, or returns nil when there is none. Commands
// call it only once their input is known to be good, so bad input never clobbers a file.
func openTrace(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	return os.Create(path)
}

// runPlan runs plan on this build, streaming its trace into traceFile when there is one, and
// closes the file: a trace that failed to reach the disk is the run's error. draw, when not
// nil, keeps what -html and -perfetto draw.
func (a *app) runPlan(plan *scenarios.Plan, traceFile *os.File, draw *drawings) (*scenarios.Result, error) {
	opts := scenarios.RunOptions{Build: a.build()}
	if traceFile != nil {
		opts.Trace = traceFile
	}
	draw.options(&opts)
	if traceFile == nil {
		return scenarios.Run(a.runner, plan, opts)
	}
	res, err := scenarios.Run(a.runner, plan, opts)
	if cerr := traceFile.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}
