package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/ckptsim/ckptsim/scenarios"
)

// openTrace creates (or empties) the file path names, for writing only: a file opened for
// reading too (os.Create) keeps a pipe such as /dev/stdout open for reading in this very
// process, so a reader that stops (head -1) is never noticed and the run blocks on a full
// pipe for ever. "" is no file. Commands call it only once their input is known to be good,
// so bad input never clobbers a file.
func openTrace(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

// traceOutput is where -trace sends the trace: the file it names, standard output for "-",
// nil for "". With "-" the trace owns standard output, so the command's report goes to
// standard error (reportTo).
func (a *app) traceOutput(path string) (io.WriteCloser, error) {
	if path == "-" {
		return nopCloser{a.stdout}, nil
	}
	f, err := openTrace(path)
	if f == nil || err != nil {
		return nil, err
	}
	return f, nil
}

// openRunTrace opens -trace for a command that runs and reports (run, replay): "-" is
// standard output, which the trace then owns, so the report moves to standard error and
// -json, which would share it, is refused.
func (a *app) openRunTrace(path string, asJSON bool) (io.WriteCloser, error) {
	if path == "-" && asJSON {
		return nil, errors.New("-trace - and -json both write standard output: send the trace to a file")
	}
	f, err := a.traceOutput(path)
	if err != nil {
		return nil, fmt.Errorf("-trace: %v", err)
	}
	if path == "-" {
		a.stdout = a.stderr
	}
	return f, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// readerGone reports whether err is a write into a pipe whose reader has gone (simrun run
// -trace - | head -1): the reader wanted no more, which ends the command quietly.
func readerGone(err error) bool { return errors.Is(err, syscall.EPIPE) }

// runPlan runs plan on this build, streaming its trace into traceFile when there is one, and
// closes the file: a trace that failed to reach the disk is the run's error. draw, when not
// nil, keeps what -html and -perfetto draw.
func (a *app) runPlan(plan *scenarios.Plan, traceFile io.WriteCloser, draw *drawings) (*scenarios.Result, error) {
	opts := scenarios.RunOptions{Build: a.build(), Watch: a.runWatch}
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
