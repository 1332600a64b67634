package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
	"github.com/ckptsim/ckptsim/zoo"
)

// TestRealZooCatchesABug runs `simrun zoo` end to end on one bug and two seeds: it plants
// forget-channel-state in a mutated simrun built with go build -overlay, runs the default
// sweep (its catalogue, and a generic part cut to a few seeds) and the hunting ground with
// it, and must report the bug caught by the catalogue and the ground, by consistent-cut,
// from seed 1, and the generic part's seeds counted apart; the replay command it prints,
// with -keep, replays the first catch with the kept mutated binary and matches its trace
// hash.
func TestRealZooCatchesABug(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutated simrun")
	}
	keep := t.TempDir()
	r := realRun("zoo", "-bug", "forget-channel-state", "-seeds", "1-2", "-generic", "1-6", "-j", "2", "-keep", keep, "-json")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var h zooHunt
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if h.Bug != "forget-channel-state" || h.Ground != "explicit-unaligned" || h.Expected != "consistent-cut" || !h.CaughtCatalogue ||
		h.SeedsRun != 2 || h.SeedsCaught != 2 || h.FirstSeed != 1 || h.Properties["consistent-cut"] != 2 || h.SeedsPanic != 0 ||
		!slices.Equal(h.CaughtSeeds, []uint64{1, 2}) {
		t.Errorf("hunt %+v", h)
	}
	// The generic part stops at its first catch: its seeds run are those up to it.
	if g := h.Generic; h.GenericSeeds != "1-6" || g == nil ||
		!(g.SeedsCaught == 0 && g.SeedsRun == 6 || g.SeedsCaught == 1 && g.SeedsRun == int(g.FirstSeed) && len(g.Properties) > 0) {
		t.Errorf("generic part %s: %+v", h.GenericSeeds, h.Generic)
	}
	for _, seed := range h.CaughtSeeds {
		kept := filepath.Join(keep, "forget-channel-state", "ground", fmt.Sprintf("explicit-unaligned-seed%d-fail.json", seed))
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("the catch of seed %d is not kept: %v", seed, err)
		}
	}
	exe := filepath.Join(keep, "forget-channel-state", "simrun-forget-channel-state")
	artifact := filepath.Join(keep, "forget-channel-state", "ground", "explicit-unaligned-seed1-fail.json")
	if h.Replay != exe+" replay "+artifact {
		t.Fatalf("replay %q, want the kept binary replaying %s", h.Replay, artifact)
	}
	out, err := exec.Command(exe, "replay", artifact).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "trace hash matches") {
		// Exit 1: the replayed run fails consistent-cut, unexpectedly for the correct
		// engine's scenario; what matters is that it reproduced.
		t.Errorf("replay: %v\n%s", err, out)
	}
}

func TestZooList(t *testing.T) {
	r := realRun("zoo", "-list")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Columns are as wide as the longest id, so compare with the spacing squeezed.
	squeezed := strings.Join(strings.Fields(r.stdout), " ")
	for _, b := range zoo.Bugs() {
		want := strings.Join(strings.Fields(fmt.Sprintf("%s %s in %s %s", b.ID, orDash(b.Flink), b.Ground, b.Planted)), " ")
		if b.Absent != "" {
			want = b.ID + " " + b.Flink + " no analogue"
		}
		if !strings.Contains(squeezed, want) {
			t.Errorf("zoo -list lacks %q:\n%s", want, r.stdout)
		}
	}
	r = realRun("zoo", "-list", "-json", "-bug", "skip-state-restore")
	var h zooListed
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || h.Bug != "skip-state-restore" || h.Expected != "restore-fidelity" || h.Ground != "standard" {
		t.Errorf("zoo -list -json -bug: exit %d, %+v (%v)", r.code, h, err)
	}
	r = realRun("zoo", "-list", "-json", "-bug", "expired-not-counted")
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || h.Flink != "FLINK-17351" || h.Fix != "apache/flink#12269" || h.Note == "" {
		t.Errorf("zoo -list -json -bug expired-not-counted: %+v (%v)", h, err)
	}
	for _, args := range [][]string{{"zoo", "extra"}, {"zoo", "-seeds", "9-1"}, {"zoo", "-j", "0"}} {
		if r := realRun(args...); r.code != exitUsage || !strings.HasPrefix(r.stderr, "simrun: zoo: ") {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
	r = realRun("zoo", "-bug", "off-by-two")
	if r.code != exitUsage || !strings.Contains(r.stderr, `simrun: zoo: -bug: no bug "off-by-two" (the zoo has alignment-deadline-off-by-one, commit-on-abort, `) {
		t.Errorf("unknown bug: exit %d, %q", r.code, r.stderr)
	}
}

// TestZooCountsPanicsApart: a run whose only violation is a panic is not a catch; a broken
// protocol invariant is.
func TestZooCountsPanicsApart(t *testing.T) {
	var r mutatedRun
	if err := json.Unmarshal([]byte(`{"verdict":"fail","violations":[{"property":"panic"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.catch("", false) != catchPanic {
		t.Errorf("a panic counted as %v", r.catch("", false))
	}
	r = mutatedRun{}
	if err := json.Unmarshal([]byte(`{"verdict":"fail","violations":[{"property":"invariant"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.catch("", false) != catchProperty || strings.Join(r.properties(), ",") != "invariant" {
		t.Errorf("a broken invariant: %v %v", r.catch("", false), r.properties())
	}
	r = mutatedRun{}
	if err := json.Unmarshal([]byte(`{"verdict":"fail","violations":[{"property":"panic"},{"property":"exactly-once"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.catch("", false) != catchProperty || strings.Join(r.properties(), ",") != "exactly-once" {
		t.Errorf("a property failure: %v %v", r.catch("", false), r.properties())
	}
	// A control is caught only by its rule: named, or the only rule of its property.
	r = mutatedRun{}
	if err := json.Unmarshal([]byte(`{"verdict":"fail","violations":[{"property":"listener-contract","rule":"notify.in-order"},{"property":"at-least-once"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	for rule, want := range map[string]catchKind{"notify.in-order": catchProperty, "output.at-least-once": catchProperty, "notify.eventually": catchNone, "cut.consistent": catchNone} {
		if got := r.catch(rule, true); got != want {
			t.Errorf("control of %s: %v, want %v", rule, got, want)
		}
	}
	for _, tc := range []struct {
		tests zooTests
		want  string
	}{
		{zooTests{Packages: []string{"./protocol"}, Failed: []string{}}, "go test ./protocol passes"},
		{zooTests{Packages: []string{"./engine", "./protocol"}, Failed: []string{"TestA", "TestB"}}, "go test ./engine ./protocol fails TestA, TestB"},
	} {
		if got := tc.tests.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	h := &zooHunt{zooCatch: zooCatch{Properties: map[string]int{"b": 1, "a": 1, "c": 2}, SeedsPanic: 1}, CataloguePanic: true}
	if got := h.propertyList(); got != "c 2, a 1, b 1, panic 1" || h.catalogueWord() != "panic" {
		t.Errorf("propertyList %q, catalogue %q", got, h.catalogueWord())
	}
}

// TestDocsZooTable: docs/zoo.md quotes a row and a planted line for every bug of the zoo as
// simrun zoo prints them (running the whole zoo is too slow for go test;
// TestRealZooCatchesABug runs one bug; .ci/zoo compares the whole table).
func TestDocsZooTable(t *testing.T) {
	data, err := os.ReadFile("../../docs/zoo.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	width := idWidth(zoo.Bugs())
	for _, b := range zoo.Bugs() {
		detail := fmt.Sprintf("  planted: %s (%s)\n", b.Planted, expectation(b.Property))
		if b.Absent != "" {
			detail = fmt.Sprintf("  no analogue: %s\n", b.Absent)
		}
		for _, want := range []string{"\n" + fmt.Sprintf("%-*s %-11s ", width, b.ID, orDash(b.Flink)), detail} {
			if !strings.Contains(section, want) {
				t.Errorf("docs/zoo.md lacks %q", want)
			}
		}
	}
}

// TestZooTableReportsTheGenericPart: each bug's row gives the generic part's first catching
// seed apart from the regimes' catches, a line under it says how that run caught it, and
// the last line names the bugs only the regimes catch; a bug the generic part alone
// catches is caught.
func TestZooTableReportsTheGenericPart(t *testing.T) {
	bugs := zoo.Bugs()[:2]
	caught := newZooCatch()
	caught.tally([]mutatedRun{
		{Seed: 7, Verdict: "pass"},
		{Seed: 8, Verdict: "fail", Violations: []mutatedViolation{{Property: "panic"}}},
		{Seed: 9, Verdict: "fail", Violations: []mutatedViolation{{Property: "exactly-once"}, {Property: "liveness"}}},
	}, "", false)
	missed := newZooCatch()
	missed.tally([]mutatedRun{{Seed: 7, Verdict: "pass"}, {Seed: 8, Verdict: "fail", Violations: []mutatedViolation{{Property: "panic"}}}}, "", false)
	hunts := []*zooHunt{
		{Bug: bugs[0].ID, zooCatch: newZooCatch(), Generic: &caught},
		{Bug: bugs[1].ID, zooCatch: newZooCatch(), CaughtCatalogue: true, Generic: &missed},
	}
	var out strings.Builder
	writeZooTable(&out, hunts, bugs, "1-20", "7-9", false)
	squeezed := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"catalogue caught in ground, seeds 1-20 first first of generated 7-9 properties in ground (runs)",
		"no 0/0 in - 9 -",
		"generic: first seed 9, by exactly-once, liveness (after a panic on 1 seed)",
		"yes 0/0 in - none -",
		"generic: not caught in generated 7-9 (a panic on 1 seed): only the regimes written for it catch it",
		"caught only by the regimes written for them (1, gaps in generated 7-9): " + bugs[1].ID,
	} {
		if !strings.Contains(squeezed, want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	if !hunts[0].caughtAnywhere() || (&zooHunt{Generic: &missed}).caughtAnywhere() {
		t.Errorf("a bug the generic part alone catches is caught; one it misses, and nothing else catches, is not")
	}
}

// TestZooInterrupted: on SIGINT the zoo hunts nothing more, says how far it got and exits
// 130, leaving no temporary directory of its own.
func TestZooInterrupted(t *testing.T) {
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "simrun-zoo-*"))
	a := testApp(t, &scenariotest.Fake{})
	a.interrupted = func() bool { return true }
	r := a.invoke("zoo", "-bug", "skip-state-restore")
	if r.code != exitInterrupted || r.stdout != "" || r.stderr != "simrun: zoo: interrupted after 0 of 1 bugs\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "simrun-zoo-*"))
	if len(after) > len(before) {
		t.Errorf("temporary directories left: %v", after)
	}
}
