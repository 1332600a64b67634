// Command simrun sweeps, runs, replays and shrinks ckptsim scenarios, and judges trace files
// that any engine wrote in the schema of package trace (simrun check).
//
// With no command it runs the default sweep: the catalogue of built-in scenarios, each over
// its own seeds, then the generic part, generated seeds 1-2000 (generic.go).
//
// Every run is a pure function of its scenario and seed. simrun prints the seed and what it
// derives first, judges each run against what its scenario expects, and saves a replayable
// artifact for every unexpected failure. Exit status: 0 when every verdict is what its
// scenario expects, 1 when any is not (or a replay shows nondeterminism), 2 for bad usage or
// bad input. simrun check exits 0 when its verdict is pass, 1 when any property fails or is
// unknown, and 2 for bad usage or bad input. simrun zoo, which plants each bug of the bug
// zoo (package zoo) in a mutated build, exits 1 when the checkers catch some bug nowhere.
// simrun mutate, which runs a sample of mutants (package mutate) the same way, measures
// and exits 0.
// See docs/simrun.md, docs/judging.md and docs/zoo.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/trace"
)

func main() {
	// A run's live heap is a few megabytes, so the default GOGC of 100 collects far more often
	// than memory requires; 400 makes `simrun bench` about 15% faster here. An explicit GOGC
	// in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses (docs/simrun.md).
const (
	exitOK         = 0 // every verdict as expected
	exitUnexpected = 1 // some verdict not as expected: a violation, an undecided property, a pass where a failure was expected
	exitUsage      = 2 // bad usage or bad input
	// exitLimit: the only unexpected verdicts are runs that hit a limit (max_events,
	// max_virtual_time): the job ran too long to judge, which is not a violation.
	exitLimit = 3
	// exitNondeterminism: a replay on the build that recorded its artifact ran otherwise,
	// which matters more than any verdict.
	exitNondeterminism = 4
	// exitInterrupted: SIGINT stopped the command, as a shell reports a command that its
	// interrupt killed (128 + 2).
	exitInterrupted = 130
)

// verdictStatus is the exit status of runs whose unexpected verdicts number unexpected, limits
// of them runs that hit a limit: 0, exitLimit when they all did, else exitUnexpected.
func verdictStatus(unexpected, limits int) int {
	switch {
	case unexpected == 0:
		return exitOK
	case limits >= unexpected:
		return exitLimit
	}
	return exitUnexpected
}

// isVerdictStatus reports whether a simrun child's exit status reports verdicts (it ran and
// wrote its output), rather than bad input or a crash.
func isVerdictStatus(code int) bool {
	return code == exitUnexpected || code == exitLimit || code == exitNondeterminism
}

// run is simrun with its arguments and output streams, so that tests call it in-process.
func run(args []string, stdout, stderr io.Writer) int {
	a := &app{
		catchInterrupt: true,
		stdout:         stdout,
		stderr:         stderr,
		stdin:          os.Stdin,
		runner:         scenarios.NewSimulation(),
		builtins:       scenarios.Builtins,
		build:          buildID,
		progress:       isTerminal(stderr),
		clock:          time.Now,
		cpus:           runtime.NumCPU(),
		invocation:     invocation(),
		artifactDir:    defaultArtifactDir,
		standardJob:    func() (simenv.BenchResult, error) { return runStandardJob(standardJobSpan) },
		longRunSpan:    longRunSpan,
		snapshotSpan:   standardJobSpan,
		getenv:         os.Getenv,
	}
	return a.main(args)
}

// defaultArtifactDir receives the artifacts of unexpected failures when -artifacts is not
// given.
const defaultArtifactDir = "simrun-artifacts"

// app is one invocation of simrun and everything it depends on, so that tests can swap the
// runner, the catalogue and the build for fakes.
type app struct {
	stdout, stderr io.Writer
	stdin          io.Reader // what check reads for the trace "-"
	runner         scenarios.Runner
	builtins       func() []*scenarios.Scenario
	build          func() string
	progress       bool // stderr is a terminal: draw a progress line there
	// runWatch, when not nil, sees the events of the next run runPlan makes (watchRun).
	runWatch func(*trace.Event)
	// clock tells the wall time for progress reports (a fake in tests; nil: no reports off a
	// terminal).
	clock       func() time.Time
	cpus        int
	invocation  string // how the user ran simrun, for the replay commands it prints
	artifactDir string
	// standardJob runs the engine's standard job once (bench).
	standardJob func() (simenv.BenchResult, error)
	// longRunSpan is the virtual time of bench's long run (longRunSpan, shorter in tests).
	longRunSpan time.Duration
	// snapshotSpan is the virtual time of each run of bench's comparison of full and
	// incremental snapshots (standardJobSpan, shorter in tests).
	snapshotSpan time.Duration
	// getenv reads the environment, where a sweep finds its shard under a batch engine
	// (shardenv.go); nil is an empty environment, so that tests see no ambient variables.
	getenv func(string) string
	// catchInterrupt: a command that cleans up after SIGINT catches it (watchInterrupt); off
	// in tests. interrupted, when not nil, stands in for SIGINT in tests: true once it came.
	catchInterrupt bool
	interrupted    func() bool
}

// watchInterrupt returns, for a command that stops cleanly on SIGINT, whether it came; stop
// gives SIGINT back its default, killing, effect.
func (a *app) watchInterrupt() (interrupted func() bool, stop func()) {
	if !a.catchInterrupt {
		return func() bool { return a.interrupted != nil && a.interrupted() }, func() {}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	return func() bool { return ctx.Err() != nil }, stop
}

// The usage line of each command, written once: the help lists them and each command quotes
// its own in its errors.
const (
	usageList    = "list [-json]"
	usageRun     = "run -scenario NAME|FILE -seed N [-trace FILE] [-reference-out FILE] [-html FILE] [-perfetto FILE] [-artifacts DIR] [-json]"
	usageSweep   = "sweep [-scenario NAME|FILE|all | -generated] [-seeds A-B] [-generic A-B] [-j N] [-shard I/N | -shards N] [-artifacts DIR] [-failfast] [-json] [-o FILE]"
	usageMerge   = "merge [-json] [-partial] FILE..."
	usageReplay  = "replay [-json] [-trace FILE] [-html FILE] [-perfetto FILE] ARTIFACT"
	usageShrink  = "shrink ARTIFACT [-o FILE] [-runs N]"
	usageBench   = "bench [-json] [-seeds N] [-j N] [-generated]"
	usageCheck   = "check [-reference FILE | -scenario NAME|FILE] [-check PROPERTY,...] [-json] [-html FILE] [-perfetto FILE] TRACE"
	usageZoo     = "zoo [-list] [-controls] [-bug ID] [-seeds A-B] [-generic A-B] [-j N] [-tests] [-keep DIR] [-json]"
	usageMutate  = "mutate [-n N] [-seed S] [-pkg protocol,engine] [-j N] [-explore DURATION] [-json] [-keep DIR] [-list] [-id ID,...] | mutate -report FILE"
	usageCover   = "cover [-pkg PATTERNS] [-func] [-j N] [-json] [-- sweep|run|replay ARGS]"
	usageShow    = "show NAME|FILE"
	usageVersion = "version"
	usageRules   = "rules [-json | -markdown]"
	usageExtract = "extract ARTIFACT"
	usageExplore = "explore -for DURATION [-seed N] [-uniform] [-j N] [-first] [-artifacts DIR] [-json] | explore -zoo [-bug ID] -for DURATION [-seed N] [-j N] [-json]"
	usageLive    = "live -scenario NAME|FILE -for DURATION [-crash-every DURATION] [-seed N] [-trace FILE] [-json] [-html FILE] [-perfetto FILE]"
)

type command struct {
	name    string
	usage   string
	summary string
	run     func(a *app, args []string) int
}

var commands = []command{
	{"list", usageList, "list the built-in scenarios", (*app).list},
	{"run", usageRun, "run one scenario on one seed", (*app).runOne},
	{"sweep", usageSweep, "run scenarios over ranges of seeds", (*app).sweep},
	{"explore", usageExplore, "explore generated scenarios for a wall-clock budget, guided by what runs reach (or -uniform), reporting unexpected verdicts", (*app).exploreCommand},
	{"merge", usageMerge, "merge the sweep -json outputs of a sweep's shards into one sweep's summary", (*app).merge},
	{"live", usageLive, "run one scenario's job in real time on goroutines and the wall clock, crashing tasks with -crash-every, and judge its trace", (*app).liveCommand},
	{"replay", usageReplay, "rerun an artifact's case and check its trace hash", (*app).replay},
	{"shrink", usageShrink, "find a smaller case that fails the same way", (*app).shrink},
	{"bench", usageBench, "measure speed on the standard scenario (or the default sweep's generic part)", (*app).bench},
	{"check", usageCheck, "judge a trace file from any engine with every property (TRACE - reads stdin)", (*app).check},
	{"rules", usageRules, "print the specification: every rule a trace is judged by, with its evidence and controls", (*app).rules},
	{"zoo", usageZoo, "plant each bug of the bug zoo in a mutated build and count what catches it", (*app).zooCommand},
	{"mutate", usageMutate, "run a seeded sample of mutants of the protocol and the engine through their unit tests, the default sweep and an exploration", (*app).mutateCommand},
	{"cover", usageCover, "measure the protocol's statement coverage that a sweep reaches", (*app).cover},
	{"show", usageShow, "print a scenario's description and its whole scenario file", (*app).show},
	{"extract", usageExtract, "print an artifact's scenario as a scenario file", (*app).extract},
	{"version", usageVersion, "print the build of this simrun", (*app).version},
}

func (a *app) main(args []string) int {
	if len(args) == 0 {
		return a.sweep(nil)
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		a.usage(a.stdout)
		return exitOK
	case "-version", "--version":
		return a.version(args[1:])
	}
	if strings.HasPrefix(name, "-") {
		// Flags without a command configure the default job, a sweep.
		return a.sweep(args)
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(a, args[1:])
		}
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return a.fail("unknown command %q%s (commands: %s; see simrun help)", name, didYouMean(name, names), strings.Join(names, ", "))
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: simrun [command] [flags]")
	fmt.Fprintf(w, "\nWith no command, simrun sweeps every built-in scenario over its default seeds, then generated seeds 1-%d.\n", genericSeedCount)
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  simrun %s\n        %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(w, "\nFlags may come before or after arguments.")
	fmt.Fprintln(w, "Exit status: 0 every verdict as expected, 1 some verdict unexpected (or nondeterminism), 2 bad usage or input.")
	fmt.Fprintln(w, "simrun check: 0 every property passes, 1 some property fails or is unknown, 2 bad usage or input.")
	fmt.Fprintln(w, "simrun zoo: 0 every bug caught, 1 some bug caught nowhere, 2 bad usage or a diff that no longer applies.")
	fmt.Fprintln(w, "simrun mutate: 0 measured, 2 bad usage or no toolchain.")
}

// fail reports bad usage or bad input on one line and returns exit status 2.
func (a *app) fail(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	// One line, whatever a wrapped error carried.
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
	fmt.Fprintln(a.stderr, "simrun: "+msg)
	return exitUsage
}

// isTerminal reports whether w is a terminal, where a redrawn progress line belongs.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// invocation returns how to run simrun again: "go run ./cmd/simrun" when this binary was
// built by go run, else its name.
func invocation() string {
	if len(os.Args) == 0 {
		return "simrun"
	}
	return invocationOf(os.Args[0])
}

// invocationOf is invocation for the executable path exe. go run builds its binary under
// a go-build folder with the package's own name, so that test comes before the name's; a
// test binary (also under go-build) stands for simrun.
func invocationOf(exe string) string {
	base := filepath.Base(exe)
	switch {
	case strings.HasSuffix(base, ".test"):
		return "simrun"
	case strings.Contains(filepath.ToSlash(exe), "/go-build"):
		return "go run ./cmd/simrun"
	case base == "simrun":
		return "simrun"
	}
	return exe
}
