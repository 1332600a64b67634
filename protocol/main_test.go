package protocol_test

import (
	"flag"
	"os"
	"testing"

	"github.com/ckptsim/ckptsim/internal/rapidtest"
)

// rapidSteps is the average number of actions per rapid state-machine
// run unless -rapid.steps or RAPID_STEPS says otherwise. rapid's default
// (30, of which many are skipped as inapplicable) leaves the machines
// barely past their first checkpoint; 300 reaches retention, failovers,
// final checkpoints and re-announcements in most runs, and the whole
// package still tests in about a second.
const rapidSteps = "300"

func TestMain(m *testing.M) {
	flag.Parse()
	set := os.Getenv("RAPID_STEPS") != ""
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.steps" })
	if !set {
		if err := flag.Set("rapid.steps", rapidSteps); err != nil {
			panic(err)
		}
	}
	rapidtest.Hermetic()
	os.Exit(m.Run())
}
