package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/zoo"
)

// coverPackages are the packages whose statement coverage simrun cover reports by default:
// the protocol that engines embed, which the sweeps exist to exercise.
const coverPackages = zoo.Module + "/protocol/..."

// cover is `simrun cover`: how much of the protocol a sweep reaches. It builds simrun with
// `go build -cover` (instrumenting -pkg), runs it (the default sweep, or the simrun command
// given after --) with GOCOVERDIR set, and reports the statement coverage per package with
// String methods left out, since a sweep has no reason to print every enum; and beside it the
// behaviour figure, which also leaves out what a correct host cannot make the protocol do
// (blocks that only panic or return an error, and the invariant checks). Like simrun zoo
// it needs the source tree and a Go toolchain. It measures; the exit status is 0 whatever
// the figure (and whatever the sweep's verdicts), 2 for bad usage or a failed build.
func (a *app) cover(args []string) int {
	fs := newFlags("cover")
	pkgs := fs.String("pkg", coverPackages, "comma-separated package patterns to measure")
	funcs := fs.Bool("func", false, "also list every function not fully covered, with its figure")
	asJSON := fs.Bool("json", false, "print one JSON object")
	jobs := positiveInt{value: a.cpus}
	fs.Var(&jobs, "j", "runs in parallel in the instrumented sweep, one per CPU unless given")
	positional, status := a.parseCommand(fs, usageCover, args)
	if status >= 0 {
		return status
	}
	run := []string{"sweep", "-j", strconv.Itoa(jobs.value)}
	if len(positional) > 0 {
		run = append(positional, "-j", strconv.Itoa(jobs.value))
		if !slices.Contains([]string{"sweep", "run", "replay"}, run[0]) {
			return a.fail("cover: the command after -- is a simrun sweep, run or replay, not %q", run[0])
		}
	}
	if run[0] != "sweep" {
		run = run[:len(run)-2] // only a sweep has -j
	}
	wd, err := os.Getwd()
	if err != nil {
		return a.fail("cover: %v", err)
	}
	root, err := zoo.FindRoot(wd)
	if err != nil {
		return a.fail("cover: %v", strings.TrimPrefix(err.Error(), "zoo: "))
	}
	dir, err := os.MkdirTemp("", "simrun-cover-")
	if err != nil {
		return a.fail("cover: %v", err)
	}
	defer os.RemoveAll(dir)

	list := exec.Command("go", append([]string{"list"}, strings.Split(*pkgs, ",")...)...)
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		return a.fail("cover: -pkg %s: go list: %v", *pkgs, err)
	}
	measured := strings.Fields(string(out))
	exe := filepath.Join(dir, "simrun-cover")
	// The main package is instrumented too: a binary whose main package is not writes no
	// coverage data at all. Its figure is left out below unless -pkg asked for it.
	build := exec.Command("go", "build", "-cover", "-coverpkg="+*pkgs+","+zoo.Module+"/cmd/simrun", "-o", exe, "./cmd/simrun")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return a.fail("cover: go build -cover: %s", lastLine(cmp.Or(string(out), err.Error())))
	}
	data := filepath.Join(dir, "covdata")
	if err := os.Mkdir(data, 0o755); err != nil {
		return a.fail("cover: %v", err)
	}
	sweep := exec.Command(exe, run...)
	sweep.Dir = wd
	sweep.Env = append(unshardedEnv(), "GOCOVERDIR="+data)
	var stdout, stderr bytes.Buffer
	sweep.Stdout, sweep.Stderr = &stdout, &stderr
	var exitErr *exec.ExitError
	if err := sweep.Run(); err != nil && !(errors.As(err, &exitErr) && isVerdictStatus(exitErr.ExitCode())) {
		return a.fail("cover: simrun %s: %s", strings.Join(run, " "), lastLine(cmp.Or(stderr.String(), err.Error())))
	}
	profile := filepath.Join(dir, "profile.txt")
	conv := exec.Command("go", "tool", "covdata", "textfmt", "-i", data, "-o", profile)
	if out, err := conv.CombinedOutput(); err != nil {
		return a.fail("cover: go tool covdata: %s", lastLine(cmp.Or(string(out), err.Error())))
	}
	f, err := os.Open(profile)
	if err != nil {
		return a.fail("cover: %v", err)
	}
	defer f.Close()
	blocks, err := readCoverProfile(f)
	if err != nil {
		return a.fail("cover: %v", err)
	}
	blocks = slices.DeleteFunc(blocks, func(b coverBlock) bool { return !slices.Contains(measured, path.Dir(b.file)) })
	report, err := summarizeCoverage(blocks, moduleSource(root, zoo.Module))
	if err != nil {
		return a.fail("cover: %v", err)
	}
	if !*funcs {
		report.Funcs = nil
	} else {
		report.Funcs = slices.DeleteFunc(report.Funcs, func(f coverFunc) bool { return f.Covered == f.Total })
	}
	if *asJSON {
		writeJSON(a.stdout, struct {
			Command string `json:"command"`
			*coverReport
		}{"simrun " + strings.Join(run, " "), report})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "statement coverage of simrun %s (String methods left out)\n", strings.Join(run, " "))
	var names []string
	for p := range report.Packages {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		c, b := report.Packages[p], report.Behaviour[p]
		fmt.Fprintf(a.stdout, "  %-30s %5.1f%%  (%d of %d statements)   behaviour %5.1f%%  (%d of %d)\n",
			strings.TrimPrefix(p, zoo.Module+"/"), c.percent(), c.Covered, c.Total, b.percent(), b.Covered, b.Total)
	}
	for _, fn := range report.Funcs {
		fmt.Fprintf(a.stdout, "    %-60s %5.1f%%  (%d of %d)\n", strings.TrimPrefix(fn.Package, zoo.Module+"/")+"."+fn.Name, fn.percent(), fn.Covered, fn.Total)
	}
	return exitOK
}
