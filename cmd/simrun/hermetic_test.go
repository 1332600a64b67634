package main

import (
	"flag"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ckptsim/ckptsim/internal/rapidtest"
)

// TestMain makes the test binary simrun too, for the scripts (TestScripts), and keeps the
// rapid suites hermetic.
func TestMain(m *testing.M) {
	testscript.Main(hermeticM{m}, map[string]func(){"simrun": main})
}

// hermeticM runs the tests with rapid's failure files off (rapidtest.Hermetic).
type hermeticM struct{ m *testing.M }

func (h hermeticM) Run() int {
	flag.Parse()
	rapidtest.Hermetic()
	return h.m.Run()
}
