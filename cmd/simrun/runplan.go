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
// closes the file: a trace that failed to reach the disk is the run's error. pics, when not
// nil, receive porcupine's pictures (run -html).
func (a *app) runPlan(plan *scenarios.Plan, traceFile *os.File, pics *pictures) (*scenarios.Result, error) {
	opts := scenarios.RunOptions{Build: a.build()}
	pics.options(&opts)
	if traceFile == nil {
		return scenarios.Run(a.runner, plan, opts)
	}
	opts.Trace = traceFile
	res, err := scenarios.Run(a.runner, plan, opts)
	if cerr := traceFile.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}
