package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
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
	"github.com/ckptsim/ckptsim/scenarios/generate"
	"github.com/ckptsim/ckptsim/zoo"
)

// zooSeeds are the seeds of each bug's hunting ground when -seeds is not given.
var zooSeeds = scenarios.SeedRange{First: 1, Last: 20}

// zooCommand is `simrun zoo`: for each bug of the bug zoo (package zoo), build a mutated
// simrun with the bug planted, run the default sweep (its catalogue and its generic part
// apart) and the bug's hunting ground over the seeds with it, and report whether and how the
// checkers caught it: by the regimes written for it (the catalogue and the ground) and by
// the generic part alone. It needs the source tree (found from the working directory) and a
// Go toolchain, like `go run ./cmd/simrun`. Exit status: 0 when every bug is caught
// somewhere, 1 when one is not (a hole in the harness), 2 for bad usage or a diff that no
// longer applies.
func (a *app) zooCommand(args []string) int {
	fs := newFlags("zoo")
	list := fs.Bool("list", false, "list the zoo's bugs without hunting them")
	bugID := fs.String("bug", "", "hunt only this bug")
	defaultSeeds := zooSeeds // the flag may only replace its value, but never share the default
	seeds := seedRangeFlag{value: &defaultSeeds}
	fs.Var(&seeds, "seeds", "seed range A-B of each bug's hunting ground")
	defaultGeneric := defaultGenericSeeds
	generic := seedRangeFlag{value: &defaultGeneric}
	fs.Var(&generic, "generic", "seed range A-B of the default sweep's generic part")
	jobs := positiveInt{value: a.cpus}
	fs.Var(&jobs, "j", "runs in parallel in each mutated simrun, one per CPU unless given")
	asJSON := fs.Bool("json", false, "print one JSON object per bug")
	unitTests := fs.Bool("tests", false, "also run go test, with the bug planted, on the packages its diff touches")
	controls := fs.Bool("controls", false, "hunt the specification's negative controls instead: each must be caught by the rule it breaks")
	keep := fs.String("keep", "", "keep each mutated simrun and its artifacts in DIR/ID, to replay them (default: a temporary directory, removed)")
	positional, status := a.parseCommand(fs, usageZoo, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("zoo: unexpected argument %q (usage: simrun %s)", positional[0], usageZoo)
	}
	bugs := zoo.Bugs()
	if *controls {
		bugs = controlsOf(bugs)
	}
	if *bugID != "" {
		b, err := zoo.Lookup(*bugID)
		if err != nil {
			return a.fail("zoo: -bug: %s", strings.TrimPrefix(err.Error(), "zoo: "))
		}
		bugs = []*zoo.Bug{b}
	}
	if *list {
		writeZooList(a.stdout, bugs, *asJSON)
		return exitOK
	}
	wd, err := os.Getwd()
	if err != nil {
		return a.fail("zoo: %v", err)
	}
	root, err := zoo.FindRoot(wd)
	if err != nil {
		return a.fail("%v", err)
	}
	if *keep != "" {
		if *keep, err = filepath.Abs(*keep); err != nil {
			return a.fail("zoo: -keep: %v", err)
		}
	}
	opts := zooOptions{seeds: *seeds.value, generic: *generic.value, workers: jobs.value, keep: *keep, unitTests: *unitTests, asControl: *controls}
	hunts, status := a.huntAll(root, bugs, opts)
	if status >= 0 {
		return status
	}
	if *asJSON {
		for _, h := range hunts {
			writeJSON(a.stdout, h)
		}
	} else {
		writeZooTable(a.stdout, hunts, bugs, seeds.value.String(), generic.value.String(), *controls)
	}
	return zooStatus(hunts)
}

// huntAll hunts each bug in turn. On SIGINT it stops (a hunt under way ends with its runs,
// which the interrupt ended too, and its temporary directory goes), says how far it got and
// returns exitInterrupted; on another error it returns the failure's status; else -1.
func (a *app) huntAll(root string, bugs []*zoo.Bug, opts zooOptions) ([]*zooHunt, int) {
	interrupted, stop := a.watchInterrupt()
	defer stop()
	var hunts []*zooHunt
	for _, b := range bugs {
		var h *zooHunt
		var err error
		if !interrupted() {
			h, err = a.huntZooBug(root, b, opts)
		}
		if interrupted() {
			fmt.Fprintf(a.stderr, "simrun: zoo: interrupted after %d of %d bugs\n", len(hunts), len(bugs))
			return nil, exitInterrupted
		}
		if err != nil {
			return nil, a.fail("%v", err)
		}
		hunts = append(hunts, h)
	}
	return hunts, -1
}

// zooStatus is simrun zoo's exit status: exitUnexpected when some bug with an analogue was
// caught nowhere, a hole in the harness.
func zooStatus(hunts []*zooHunt) int {
	for _, h := range hunts {
		if h.Absent == "" && !h.caughtAnywhere() {
			return exitUnexpected
		}
	}
	return exitOK
}

// writeZooList prints zoo -list: each bug's header, one line or one JSON object each.
func writeZooList(w io.Writer, bugs []*zoo.Bug, asJSON bool) {
	width := idWidth(bugs)
	for _, b := range bugs {
		switch {
		case asJSON:
			writeJSON(w, zooListed{Bug: b.ID, Flink: b.Flink, Fix: b.Fix, Planted: b.Planted, Expected: b.Property, Rule: b.Rule, Ground: b.Ground, Note: b.Note, Absent: b.Absent})
		case b.Absent != "":
			fmt.Fprintf(w, "%-*s %-11s %-23s %s\n", width, b.ID, orDash(b.Flink), "no analogue", b.Absent)
		default:
			fmt.Fprintf(w, "%-*s %-11s %-23s %s\n", width, b.ID, orDash(b.Flink), "in "+b.Ground, b.Planted)
		}
	}
}

// writeZooTable prints the hunts as simrun zoo's table: one row per bug (or control) and its
// details under it. A bug's row says what caught it twice: the named regimes (the
// catalogue, and its hunting ground over seeds) and the generic part (generated seeds
// generic) alone, by its first catching seed; a last line names the bugs only the regimes
// catch.
func writeZooTable(w io.Writer, hunts []*zooHunt, bugs []*zoo.Bug, seeds, generic string, controls bool) {
	width := idWidth(bugs)
	caughtHeader := fmt.Sprintf("caught in ground, seeds %s", seeds)
	caughtWidth := len(caughtHeader)
	for _, h := range hunts {
		caughtWidth = max(caughtWidth, len(h.caught()))
	}
	if controls {
		fmt.Fprintf(w, "%-*s %-*s %-*s %-6s %s\n", width, "control", ruleWidth(bugs), "rule", caughtWidth, caughtHeader, "first", "properties (runs)")
		for _, h := range hunts {
			fmt.Fprintf(w, "%-*s %-*s %-*s %-6s %s\n", width, h.Bug, ruleWidth(bugs), h.Rule,
				caughtWidth, h.caught(), orDash(h.firstSeed()), h.propertyList())
			fmt.Fprintf(w, "  planted: %s\n", h.Planted)
		}
		return
	}
	genericHeader := generate.Name + " " + generic
	firstHeader := "first of " + genericHeader
	firstWidth := len(firstHeader)
	fmt.Fprintf(w, "%-*s %-11s %-9s %-*s %-6s %-*s %s\n", width, "bug", "flink", "catalogue", caughtWidth, caughtHeader, "first",
		firstWidth, firstHeader, "properties in ground (runs)")
	var gaps []string
	for _, h := range hunts {
		if h.Absent != "" {
			fmt.Fprintf(w, "%-*s %-11s %-9s %s\n", width, h.Bug, orDash(h.Flink), "absent", "-")
			fmt.Fprintf(w, "  no analogue: %s\n", h.Absent)
			writeDetail(w, "fix:    ", h.Fix)
			continue
		}
		fmt.Fprintf(w, "%-*s %-11s %-9s %-*s %-6s %-*s %s\n", width, h.Bug, orDash(h.Flink), h.catalogueWord(),
			caughtWidth, h.caught(), orDash(h.firstSeed()), firstWidth, h.Generic.firstCell(), h.propertyList())
		fmt.Fprintf(w, "  planted: %s (%s)\n", h.Planted, expectation(h.Expected))
		if len(h.CaughtSeeds) > 0 {
			fmt.Fprintf(w, "  caught:  seeds %s\n", joinSeeds(h.CaughtSeeds))
		}
		fmt.Fprintf(w, "  generic: %s\n", h.Generic.describe(genericHeader))
		if h.Generic != nil && h.Generic.SeedsCaught == 0 {
			gaps = append(gaps, h.Bug)
		}
		writeDetail(w, "fix:    ", h.Fix)
		if h.Flink != "" {
			writeDetail(w, "note:   ", h.Note)
		}
		writeDetail(w, "replay: ", h.Replay)
		if h.Tests != nil {
			fmt.Fprintf(w, "  tests:   %s\n", h.Tests)
		}
	}
	if len(gaps) > 0 {
		fmt.Fprintf(w, "caught only by the regimes written for them (%d, gaps in %s): %s\n", len(gaps), genericHeader, strings.Join(gaps, ", "))
	}
}

// writeDetail prints one labelled line under a bug's row, if value is set.
func writeDetail(w io.Writer, label, value string) {
	if value != "" {
		fmt.Fprintf(w, "  %s %s\n", label, value)
	}
}

// zooListed is a zoo bug as -list -json prints it: its header.
type zooListed struct {
	Bug      string `json:"bug"`
	Flink    string `json:"flink"`
	Fix      string `json:"fix,omitempty"`
	Planted  string `json:"planted"`
	Expected string `json:"expected"` // the property expected to catch it
	Rule     string `json:"rule,omitempty"`
	Ground   string `json:"ground"`
	Note     string `json:"note,omitempty"`
	Absent   string `json:"absent,omitempty"`
}

// zooHunt is what hunting one zoo bug found.
type zooHunt struct {
	Bug      string `json:"bug"`
	Flink    string `json:"flink"`
	Fix      string `json:"fix,omitempty"`
	Planted  string `json:"planted"`
	Expected string `json:"expected"` // the property expected to catch it
	// Rule is the rule of the specification it breaks; a control counts as caught only
	// by a violation of its rule.
	Rule   string `json:"rule,omitempty"`
	Ground string `json:"ground"`
	Note   string `json:"note,omitempty"`
	// Absent says why ckptsim has no analogue of the Flink bug; nothing was hunted.
	Absent string `json:"absent,omitempty"`
	// CaughtCatalogue: some run of the default sweep's catalogue failed a property it was
	// not expected to. CataloguePanic: the catalogue saw the bug only as a panic (the panic
	// violation), which is not a catch.
	CaughtCatalogue bool `json:"caught_catalogue"`
	CataloguePanic  bool `json:"catalogue_panic,omitempty"`
	// zooCatch is what the hunting ground caught.
	zooCatch
	// Generic is what the default sweep's generic part caught alone, over GenericSeeds (nil
	// for a control, which the default sweep does not measure).
	Generic      *zooCatch `json:"generic,omitempty"`
	GenericSeeds string    `json:"generic_seeds,omitempty"`
	Replay       string    `json:"replay,omitempty"`
	// Tests is what go test said of the touched packages with the bug planted (-tests).
	Tests *zooTests `json:"tests,omitempty"`
}

// zooTests is the result of the touched packages' own tests with a bug planted.
type zooTests struct {
	Packages []string `json:"packages"`
	Failed   []string `json:"failed"` // the top-level tests that failed; empty when all passed
}

func (z *zooTests) String() string {
	pkgs := strings.Join(z.Packages, " ")
	if len(z.Failed) == 0 {
		return "go test " + pkgs + " passes"
	}
	return "go test " + pkgs + " fails " + strings.Join(z.Failed, ", ")
}

func (h *zooHunt) catalogueWord() string {
	switch {
	case h.CaughtCatalogue:
		return "yes"
	case h.CataloguePanic:
		return "panic"
	}
	return "no"
}

// caughtAnywhere: the catalogue, the hunting ground or the generic part caught the bug.
func (h *zooHunt) caughtAnywhere() bool {
	return h.CaughtCatalogue || h.SeedsCaught > 0 || h.Generic != nil && h.Generic.SeedsCaught > 0
}

func (c *zooCatch) firstSeed() string {
	if c == nil || c.FirstSeed == 0 {
		return ""
	}
	return strconv.FormatUint(c.FirstSeed, 10)
}

// propertyList renders Properties most runs first (ties by name), with the panics last.
func (h *zooCatch) propertyList() string {
	var names []string
	for p := range h.Properties {
		names = append(names, p)
	}
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(h.Properties[y], h.Properties[x]), cmp.Compare(x, y))
	})
	var parts []string
	for _, p := range names {
		parts = append(parts, fmt.Sprintf("%s %d", p, h.Properties[p]))
	}
	if h.SeedsPanic > 0 {
		parts = append(parts, fmt.Sprintf("panic %d", h.SeedsPanic))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string { return cmp.Or(s, "-") }

// caught is the hunt's "caught in ground" cell: seeds caught of seeds run, and where.
func (h *zooHunt) caught() string {
	return fmt.Sprintf("%d/%d in %s", h.SeedsCaught, h.SeedsRun, h.Ground)
}

// idWidth is the width of the bug column: the longest id of bugs.
func idWidth(bugs []*zoo.Bug) int {
	width := len("bug")
	for _, b := range bugs {
		width = max(width, len(b.ID))
	}
	return width
}

// zooOptions are simrun zoo's settings for each bug's hunt.
type zooOptions struct {
	seeds     scenarios.SeedRange // the hunting ground's
	generic   scenarios.SeedRange // the default sweep's generic part's
	workers   int
	keep      string
	unitTests bool
	asControl bool
}

// huntZooBug builds simrun with b planted and runs the default sweep and b's hunting ground
// on seeds with it. The binary and the runs' artifacts go to keep/ID when keep is set, and
// to a temporary directory, removed afterwards, when it is not.
func (a *app) huntZooBug(root string, b *zoo.Bug, o zooOptions) (*zooHunt, error) {
	seeds, keep, unitTests, asControl := o.seeds, o.keep, o.unitTests, o.asControl
	h := &zooHunt{Bug: b.ID, Flink: b.Flink, Fix: b.Fix, Planted: b.Planted, Expected: b.Property, Rule: b.Rule, Ground: b.Ground, Note: b.Note, Absent: b.Absent, zooCatch: newZooCatch()}
	if b.Absent != "" {
		return h, nil
	}
	dir := filepath.Join(keep, b.ID)
	if keep == "" {
		var err error
		if dir, err = os.MkdirTemp("", "simrun-zoo-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("zoo: -keep: %v", err)
	}
	if a.progress {
		fmt.Fprintf(a.stderr, "simrun: zoo: planting %s\n", b.ID)
	}
	exe, err := zoo.Build(root, b, dir)
	if err != nil {
		return nil, err
	}
	j := strconv.Itoa(o.workers)
	if !asControl {
		// A control measures its rule in its ground; the default sweep is the bugs' measure.
		if err := a.huntDefault(h, exe, b, o, dir); err != nil {
			return nil, err
		}
	}
	ground := []string{"sweep", "-scenario", b.Ground, "-seeds", seeds.String(), "-json"}
	groundRuns, err := runMutated(exe, b, append(ground, "-j", j, "-artifacts", filepath.Join(dir, "ground"))...)
	if err != nil {
		return nil, err
	}
	if asControl && breaksRule(string(checker.PropDeterminism), "", b.Rule) {
		// A sweep's runs have no pinned hash to judge determinism by: run the ground again,
		// on one worker, and compare each seed's trace hash with the first run's.
		again, err := runMutated(exe, b, append(ground, "-j", "1", "-artifacts", filepath.Join(dir, "again"))...)
		if err != nil {
			return nil, err
		}
		judgeRerun(groundRuns, again)
	}
	firstArtifact := h.tally(groundRuns, b.Rule, asControl)
	if unitTests {
		failed, err := zoo.TestPackages(root, b, filepath.Join(dir, zoo.OverlayFile))
		if err != nil {
			return nil, err
		}
		if failed == nil {
			failed = []string{}
		}
		h.Tests = &zooTests{Packages: b.Packages(), Failed: failed}
	}
	switch {
	case h.FirstSeed == 0:
	case keep != "" && firstArtifact != "":
		// The kept mutated binary replays its own artifact (same build, same trace hash).
		h.Replay = shellQuote(exe) + " replay " + shellQuote(firstArtifact)
	default:
		h.Replay = fmt.Sprintf("%s zoo -bug %s -seeds %d-%d -keep simrun-zoo", a.invocation, b.ID, h.FirstSeed, h.FirstSeed)
	}
	return h, nil
}

// tally counts runs into h and returns the artifact of the lowest catching seed. With
// byRule, only a violation of rule is a catch (a control's measure).
func (h *zooCatch) tally(runs []mutatedRun, rule string, byRule bool) (firstArtifact string) {
	for _, r := range runs {
		h.SeedsRun++
		switch r.catch(rule, byRule) {
		case catchProperty:
			h.SeedsCaught++
			h.CaughtSeeds = append(h.CaughtSeeds, r.Seed)
			if h.FirstSeed == 0 || r.Seed < h.FirstSeed {
				h.FirstSeed, firstArtifact = r.Seed, r.Artifact
			}
			for _, p := range r.properties() {
				h.Properties[p]++
			}
		case catchPanic:
			h.SeedsPanic++
		}
	}
	slices.Sort(h.CaughtSeeds)
	return firstArtifact
}

// judgeRerun marks as a determinism failure every run of first whose seed gave another
// trace hash in again, the same sweep run a second time.
func judgeRerun(first, again []mutatedRun) {
	hashes := map[uint64]string{}
	for _, r := range again {
		hashes[r.Seed] = r.TraceHash
	}
	for i := range first {
		r := &first[i]
		if other, ok := hashes[r.Seed]; ok && other != r.TraceHash {
			r.Verdict = scenarios.VerdictFail
			r.Violations = append(r.Violations, mutatedViolation{Property: string(checker.PropDeterminism)})
		}
	}
}

// mutatedRun is the part of a sweep's JSON line that the zoo reads.
type mutatedRun struct {
	Scenario   string             `json:"scenario"`
	Seed       uint64             `json:"seed"`
	Verdict    string             `json:"verdict"`
	Unexpected bool               `json:"unexpected"`
	Artifact   string             `json:"artifact"`
	TraceHash  string             `json:"trace_hash"`
	Violations []mutatedViolation `json:"violations"`
	// Drawn is set on the generic part's runs only (the scenario their seed drew).
	Drawn string `json:"drawn"`
}

// mutatedViolation is the part of a violation that the zoo reads.
type mutatedViolation struct {
	Property string `json:"property"`
	Rule     string `json:"rule"`
}

type catchKind int

const (
	catchNone     catchKind = iota
	catchProperty           // a property failed, or a protocol invariant check
	catchPanic              // only a panic: something broke, but no rule named what
)

// catch says how a run showed the bug: a failed verdict with a property of the checkers or
// a broken protocol invariant is a catch; one whose only violation is a panic is not. With
// byRule, only a violation of rule is a catch: one that names it, or one of the property
// that judges it when that property judges no other rule.
func (r *mutatedRun) catch(rule string, byRule bool) catchKind {
	if r.Verdict != scenarios.VerdictFail {
		return catchNone
	}
	if !byRule && len(r.properties()) > 0 {
		return catchProperty
	}
	for _, v := range r.Violations {
		if byRule && breaksRule(v.Property, v.Rule, rule) {
			return catchProperty
		}
	}
	if len(r.properties()) > 0 {
		return catchNone // caught, but by another rule: the control's rule missed it
	}
	return catchPanic
}

// breaksRule reports whether a violation of property, naming rule got (or none), is one of
// rule want.
func breaksRule(property, got, want string) bool {
	if got != "" {
		return got == want
	}
	r, ok := checker.RuleNamed(want)
	if !ok || string(r.Property) != property {
		return false
	}
	for _, other := range checker.Rules() {
		if other.Property == r.Property && other.Name != want {
			return false // the property judges several rules and did not say which
		}
	}
	return true
}

// controlsOf returns the negative controls of the specification's rules: the zoo's controls
// and every bug of bugs that names the rule it breaks, in the order of their ids.
func controlsOf(bugs []*zoo.Bug) []*zoo.Bug {
	out := zoo.Controls()
	for _, b := range bugs {
		if b.Rule != "" {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(x, y *zoo.Bug) int { return strings.Compare(x.ID, y.ID) })
	return out
}

// ruleWidth is the width of the controls' rule column.
func ruleWidth(bugs []*zoo.Bug) int {
	width := len("rule")
	for _, b := range bugs {
		width = max(width, len(b.Rule))
	}
	return width
}

// properties returns the distinct properties the run violated (invariant among them when a
// protocol invariant check failed), panics left out.
func (r *mutatedRun) properties() []string {
	var out []string
	for _, v := range r.Violations {
		if v.Property != string(scenarios.PropertyPanic) && !slices.Contains(out, v.Property) {
			out = append(out, v.Property)
		}
	}
	return out
}

// runMutated runs the mutated simrun exe with args (a sweep with -json) and returns its
// runs. Exit status 1 (some verdict unexpected) is what a caught bug looks like; any other
// failure is an error with what the binary printed.
func runMutated(exe string, b *zoo.Bug, args ...string) ([]mutatedRun, error) {
	cmd := exec.Command(exe, args...)
	cmd.Env = unshardedEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && isVerdictStatus(exitErr.ExitCode())) {
		return nil, fmt.Errorf("zoo: %s: simrun %s: %v: %s", b.ID, strings.Join(args, " "), err, lastLine(stderr.String()))
	}
	var runs []mutatedRun
	scan := bufio.NewScanner(&stdout)
	scan.Buffer(nil, 64<<20)
	for scan.Scan() {
		// The summary line's fields differ (unexpected is a count there): skip it first.
		var line struct {
			Summary bool `json:"summary"`
		}
		var r mutatedRun
		if err := json.Unmarshal(scan.Bytes(), &line); err == nil && line.Summary {
			continue
		}
		if err := json.Unmarshal(scan.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("zoo: %s: simrun %s printed a line that is not a run: %v", b.ID, strings.Join(args, " "), err)
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("zoo: %s: simrun %s ran nothing: %s", b.ID, strings.Join(args, " "), lastLine(stderr.String()))
	}
	return runs, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// expectation says what is expected to catch a bug: its property, or, for a bug whose header
// says property "-", that no property names it yet (a blind spot of the harness,
// kept in the zoo so that the table shows it).
func expectation(property string) string {
	if property == "-" {
		return "no property names it yet: the note says what would"
	}
	return "expected to fail " + property
}

// joinSeeds is "1, 3, 7".
func joinSeeds(seeds []uint64) string {
	words := make([]string, len(seeds))
	for i, s := range seeds {
		words[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(words, ", ")
}
