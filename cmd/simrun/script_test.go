package main

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var rewriteScripts = flag.Bool("rewrite", false, "rewrite the expected outputs of the scripts in testdata/script")

// TestScripts runs the command-line scripts of testdata/script, the README's tour and the
// docs' walkthroughs among them, each in a fresh directory with simrun on its PATH, and
// compares what simrun prints with the exact outputs each script holds (the wall-clock
// parts masked: see mask). After a deliberate change of output:
//
//	go test ./cmd/simrun -run TestScripts -rewrite
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		Cmds:          map[string]func(*testscript.TestScript, bool, []string){"mask": maskCmd},
		UpdateScripts: *rewriteScripts,
	})
}

// maskCmd is the script command "mask stdout" (or stderr): it prints that output of the
// command before with what depends on the machine or the build replaced (mask), so that
// the next cmp compares the rest exactly.
func maskCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || args[0] != "stdout" && args[0] != "stderr" {
		ts.Fatalf("usage: mask stdout|stderr")
	}
	_, err := ts.Stdout().Write([]byte(mask(ts.ReadFile(args[0]))))
	ts.Check(err)
}

// wallClock and buildName match what a run's output says of the machine and the build:
// wall-clock durations with their speed-up, and build ids.
var (
	wallClock = regexp.MustCompile(`[0-9.]+(ns|µs|ms|s|m|h)[0-9.a-zµ]* wall( \([0-9.]+x\))?`)
	wallNanos = regexp.MustCompile(`"wall_ns":[0-9]+`)
	buildName = regexp.MustCompile(`build [^\s:,)]+`)
	buildJSON = regexp.MustCompile(`"build":"[^"]*"`)
)

// mask replaces the wall-clock durations and the build ids in out, and the non-breaking
// spaces go-cmp puts at random into its diffs (so that no test relies on their form).
func mask(out string) string {
	out = strings.ReplaceAll(out, "\u00a0", " ")
	out = wallClock.ReplaceAllString(out, "WALL wall")
	out = wallNanos.ReplaceAllString(out, `"wall_ns":0`)
	out = buildJSON.ReplaceAllString(out, `"build":"BUILD"`)
	return buildName.ReplaceAllString(out, "build BUILD")
}
