// Package rapidtest keeps the module's rapid property suites hermetic. rapid writes a
// failure file under testdata/rapid/ for every failing property and replays every such file
// on later runs, so one local failure, in a folder git does not track, would change what
// later runs of the same test check on that machine and no other. The suites therefore run
// with rapid.nofailfile set: a failure prints the seed that reproduces it (-rapid.seed=N),
// and a case worth keeping becomes a named test. RAPID_FAILFILES=1 (or an explicit
// -rapid.nofailfile=false) restores rapid's own behaviour, to explore. Only tests import it.
package rapidtest

import (
	"flag"
	"os"
	"testing"
)

// Main runs a package's tests hermetically; a TestMain of nothing else calls it.
func Main(m *testing.M) {
	flag.Parse()
	Hermetic()
	os.Exit(m.Run())
}

// Hermetic turns rapid's failure files off unless the command line or RAPID_FAILFILES asked
// for them. Call it after flag.Parse, in a TestMain that does more.
func Hermetic() {
	asked := os.Getenv("RAPID_FAILFILES") != ""
	flag.Visit(func(f *flag.Flag) { asked = asked || f.Name == "rapid.nofailfile" })
	if f := flag.Lookup("rapid.nofailfile"); f != nil && !asked {
		if err := f.Value.Set("true"); err != nil {
			panic(err)
		}
	}
}

// PinnedSeed is the rapid seed the scenario suites run with by default, so that `go test`
// checks the same generated cases on every run and every machine. Exploring new cases is a
// separate act: pass -rapid.seed=N (and -rapid.checks), or set CKPTSIM_RAPID_SEED=random.
const PinnedSeed = "20261130"

// MainPinned is Main with rapid's seed pinned to PinnedSeed unless the command line or
// CKPTSIM_RAPID_SEED=random asks otherwise.
func MainPinned(m *testing.M) {
	flag.Parse()
	seed := flag.Lookup("rapid.seed")
	if seed != nil && seed.Value.String() == "0" && os.Getenv("CKPTSIM_RAPID_SEED") != "random" {
		if err := seed.Value.Set(PinnedSeed); err != nil {
			panic(err)
		}
	}
	Hermetic()
	os.Exit(m.Run())
}
