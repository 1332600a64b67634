package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/zoo"
)

// exploreZoo is `simrun explore -zoo`: for each bug of the zoo, build a simrun with the bug
// planted (zoo.Build) and explore in it twice, guided and uniform, for the budget each,
// recording the runs and seconds to the first catch. A catch is an unexpected run that
// failed a property; a limit, an undecided run or a bare panic does not count, as in simrun
// zoo. Exit status: 0 when every bug was caught by one of the two, 1 when some bug was
// caught by neither, 2 for bad usage or a bug that does not build.
func (a *app) exploreZoo(o exploreOptions, bugID string) int {
	var bugs []*zoo.Bug
	for _, b := range zoo.Bugs() {
		if b.Absent == "" && (bugID == "" || b.ID == bugID) {
			bugs = append(bugs, b)
		}
	}
	if bugID != "" && len(bugs) == 0 {
		if _, err := zoo.Lookup(bugID); err != nil {
			return a.fail("explore: -bug: %s", trimZoo(err))
		}
		return a.fail("explore: -bug %s: the zoo has no analogue of it to plant", bugID)
	}
	wd, err := os.Getwd()
	if err != nil {
		return a.fail("explore: %v", err)
	}
	root, err := zoo.FindRoot(wd)
	if err != nil {
		return a.fail("%v", err)
	}
	tmp, err := os.MkdirTemp("", "simrun-explore-zoo-")
	if err != nil {
		return a.fail("explore: %v", err)
	}
	defer os.RemoveAll(tmp)
	var rows []exploreZooRow
	for _, b := range bugs {
		dir := filepath.Join(tmp, b.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return a.fail("explore: %v", err)
		}
		exe, err := zoo.Build(root, b, dir)
		if err != nil {
			return a.fail("%v", err)
		}
		row := exploreZooRow{Bug: b.ID}
		for _, uniform := range []bool{false, true} {
			c := a.huntByExploring(exe, dir, o, uniform)
			row.set(uniform, c)
			if !o.asJSON {
				fmt.Fprintf(a.stderr, "simrun: %s %s: %s\n", b.ID, exploreMode(uniform), c)
			}
		}
		rows = append(rows, row)
	}
	a.writeExploreZoo(rows, o)
	for _, r := range rows {
		if !r.Guided.Caught && !r.Uniform.Caught {
			return exitUnexpected
		}
	}
	return exitOK
}

func trimZoo(err error) string { return strings.TrimPrefix(err.Error(), "zoo: ") }

// exploreCatch is how one exploration of a mutated simrun went.
type exploreCatch struct {
	Caught     bool     `json:"caught"`
	Run        int      `json:"run,omitempty"` // the catch's run, from 1
	Seconds    float64  `json:"seconds"`       // to the catch, or the whole exploration
	Runs       int      `json:"runs"`          // runs explored: to the catch, or all
	Properties []string `json:"properties,omitempty"`
	// Others counts the unexpected runs before the catch that were no catch (a limit, an
	// undecided run, a bare panic).
	Others int    `json:"others,omitempty"`
	Error  string `json:"error,omitempty"` // the exploration did not run to its end
}

func (c exploreCatch) String() string {
	switch {
	case c.Error != "":
		return "error: " + c.Error
	case c.Caught:
		return fmt.Sprintf("caught at run %d, %.1fs", c.Run, c.Seconds)
	}
	return fmt.Sprintf("not caught in %d runs, %.1fs", c.Runs, c.Seconds)
}

// huntByExploring runs `explore -json` in the mutated simrun exe until its first catch,
// reading its lines as they come, and stops it there. It does not pass -first: that stops
// at any unexpected run, and a limit first would end the hunt before a catch.
func (a *app) huntByExploring(exe, dir string, o exploreOptions, uniform bool) exploreCatch {
	args := []string{"explore", "-for", o.budget.String(), "-seed", strconv.FormatUint(o.seed, 10), "-j", strconv.Itoa(o.workers),
		"-json", "-artifacts", filepath.Join(dir, exploreMode(uniform))}
	if uniform {
		args = append(args, "-uniform")
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return exploreCatch{Error: err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return exploreCatch{Error: err.Error()}
	}
	c, done := readExploreLines(stdout)
	if done {
		cmd.Process.Kill() // the catch is in; the rest of the budget is not needed
		io.Copy(io.Discard, stdout)
	}
	err = cmd.Wait()
	if !done && c.Error == "" {
		if exit, ok := err.(*exec.ExitError); ok && (exit.ExitCode() == exitUsage || exit.ExitCode() > exitNondeterminism) {
			c.Error = fmt.Sprintf("exit status %d: %s", exit.ExitCode(), lastLine(stderr.String()))
		}
	}
	return c
}

// readExploreLines reads explore -json's lines up to the first catch (done) or the summary.
func readExploreLines(r io.Reader) (c exploreCatch, done bool) {
	scan := bufio.NewScanner(r)
	scan.Buffer(nil, 64<<20)
	for scan.Scan() {
		line := scan.Bytes()
		if bytes.HasPrefix(line, []byte(`{"explore":`)) {
			var s map[string]exploreSummary
			if err := json.Unmarshal(line, &s); err != nil {
				return exploreCatch{Error: "summary: " + err.Error()}, false
			}
			c.Runs, c.Seconds = s["explore"].Runs, s["explore"].Seconds
			return c, false
		}
		var f struct {
			scenarios.Result
			Run     int     `json:"run"`
			Seconds float64 `json:"seconds"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			return exploreCatch{Error: "find: " + err.Error()}, false
		}
		props := f.ViolatedProperties()
		if f.Verdict != scenarios.VerdictFail || !slices.ContainsFunc(props, func(p checker.Property) bool { return p != scenarios.PropertyPanic }) {
			c.Others++
			continue
		}
		c.Caught, c.Run, c.Runs, c.Seconds = true, f.Run, f.Run, f.Seconds
		for _, p := range props {
			c.Properties = append(c.Properties, string(p))
		}
		return c, true
	}
	return exploreCatch{Error: "the output ended without a summary"}, false
}
