package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// check is `simrun check`: judge a trace file that any engine wrote in the schema of package
// trace with the checkers, against a reference file (-reference), a scenario's reference
// (-scenario) or none. Exit status 0 when every property passes, 1 when any fails or is
// unknown (an unknown is not a pass), 2 for bad usage or bad input.
func (a *app) check(args []string) int {
	fs := newFlags("check")
	refPath := fs.String("reference", "", "judge against this reference file (JSON; see docs/judging.md)")
	scenarioArg := fs.String("scenario", "", "judge against this built-in scenario's or scenario file's reference, with its properties")
	checkList := fs.String("check", "", "comma-separated properties, rules or sections of the specification to judge, or all (default: every property that applies)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	htmlPath := fs.String("html", "", "write the trace's space-time diagram and verdict (an HTML page) to this file")
	perfettoPath := fs.String("perfetto", "", "write the trace as trace-event JSON for ui.perfetto.dev to this file")
	positional, status := a.parseCommand(fs, usageCheck, args)
	if status >= 0 {
		return status
	}
	if len(positional) != 1 {
		return a.fail("check: want exactly one trace file (- for stdin), got %d arguments (usage: simrun %s)", len(positional), usageCheck)
	}
	tracePath := positional[0]
	if *refPath != "" && *scenarioArg != "" {
		return a.fail("check: -reference and -scenario both give a reference; choose one (usage: simrun %s)", usageCheck)
	}
	var props []checker.Property
	if *checkList != "" {
		var err error
		if props, err = parseProperties(*checkList); err != nil {
			return a.fail("check: -check: %v", err)
		}
	}

	ref, source, err := a.checkReference(*refPath, *scenarioArg)
	if err != nil {
		return a.fail("check: %v", err)
	}
	draw, err := reserveDrawings(*htmlPath, *perfettoPath, namedFile{"the trace", tracePath}, namedFile{"-reference", *refPath})
	if err != nil {
		return a.fail("check: %v", err)
	}
	if props == nil {
		props = checker.DefaultProperties(ref)
	}

	header, events, err := a.readTrace(tracePath)
	if err != nil {
		return a.fail("check: %v", err)
	}
	report, err := judgeTrace(events, ref, draw.checkerOptions(checker.Options{Properties: props}))
	if err != nil {
		return a.fail("check: %s: %v", tracePath, err)
	}
	notes := append([]string{fmt.Sprintf("trace %s, judged against %s", tracePath, source)}, reportNotes(report)...)
	pictures, err := draw.drawJudged(checkTitle(tracePath, header), notes, events, reportViolations(report))
	if err != nil {
		return a.fail("check: %v", err)
	}
	out := judgedOutput(tracePath, header, events, source, report)
	out.drawn = pictures
	if *asJSON {
		writeJSON(a.stdout, out)
	} else {
		printCheck(a.stdout, out, report)
		pictures.print(a.stdout)
	}
	if report.Verdict() != checker.VerdictPass {
		return exitUnexpected
	}
	return exitOK
}

// judgedOutput is what simrun check says of the trace at tracePath, judged against source.
func judgedOutput(tracePath string, header trace.Header, events []trace.Event, source string, report checker.Report) checkJSON {
	return checkJSON{
		Trace:     tracePath,
		Scenario:  header.Scenario,
		Seed:      header.Seed,
		Build:     header.Build,
		Events:    len(events),
		TraceHash: trace.HashEvents(events),
		Reference: source,
		Verdict:   string(report.Verdict()),
		Results:   resultsForJSON(report),
	}
}

// parseProperties reads a -check list: names separated by commas, each a property, a rule of
// the specification or a section of it (checker.Select), or all. A rule selects the property
// that judges it, whose whole verdict is reported; its violations name their rules.
func parseProperties(list string) ([]checker.Property, error) {
	if strings.TrimSpace(list) == "all" {
		return slices.Clone(checker.AllProperties), nil
	}
	names := strings.Split(list, ",")
	props, err := checker.Select(names)
	if err != nil {
		var props, sections, all []string
		for _, p := range checker.AllProperties {
			props = append(props, string(p))
		}
		for _, s := range checker.Specification() {
			sections = append(sections, s.Name)
		}
		for _, r := range checker.Rules() {
			all = append(all, r.Name)
		}
		all = slices.Concat(all, props, sections)
		suggestion := ""
		for _, name := range names {
			if _, err := checker.Select([]string{name}); err != nil {
				suggestion = didYouMean(strings.TrimSpace(name), all)
				break
			}
		}
		return nil, fmt.Errorf("%s%s (properties: %s; sections: %s; simrun rules lists the rules; or all)",
			trimChecker(err), suggestion, strings.Join(props, ", "), strings.Join(sections, ", "))
	}
	return props, nil
}

// checkReference is what check judges against: a reference file, a scenario's reference,
// or none, and how the report names it.
func (a *app) checkReference(refPath, scenarioArg string) (checker.Reference, string, error) {
	switch {
	case refPath != "":
		ref, err := loadReference(refPath)
		if err != nil {
			return ref, "", fmt.Errorf("-reference %v", err)
		}
		return ref, refPath, nil
	case scenarioArg != "":
		s, err := a.loadScenario(scenarioArg)
		if err != nil {
			return checker.Reference{}, "", err
		}
		// The reference carries the scenario's promises, so that a trace of its run is
		// judged as the run was.
		ref, err := scenarios.ReferenceFor(s)
		if err != nil {
			return ref, "", fmt.Errorf("%s", trimPackage(err))
		}
		return ref, "scenario " + s.Name, nil
	}
	return checker.Reference{}, "none (the output properties and determinism need one: -reference FILE or -scenario NAME|FILE)", nil
}

// checkTitle is the title of a judged trace's page: the run its header names, or the file.
func checkTitle(tracePath string, header trace.Header) string {
	if header.Scenario != "" {
		return fmt.Sprintf("%s seed %d (%s, judged by simrun check)", header.Scenario, header.Seed, tracePath)
	}
	return tracePath + " (judged by simrun check)"
}

// judgeTrace runs the checkers. A panic of a checker on a foreign trace is a checker bug, but
// it is reported on one line like bad input, not as a stack trace.
func judgeTrace(events []trace.Event, ref checker.Reference, opts checker.Options) (report checker.Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the checkers failed on this trace (a checker bug; please report it with the trace): %v", r)
		}
	}()
	return checker.Check(events, ref, opts), nil
}

// loadReference reads a reference file.
func loadReference(path string) (checker.Reference, error) {
	f, err := openInput(path)
	if err != nil {
		return checker.Reference{}, err
	}
	defer f.Close()
	ref, err := checker.ReadReference(f)
	if err != nil {
		return checker.Reference{}, fmt.Errorf("%s: %s", path, trimChecker(err))
	}
	return ref, nil
}

// readTrace reads a whole trace file, or stdin for "-". Its errors say FILE:LINE: what.
func (a *app) readTrace(path string) (trace.Header, []trace.Event, error) {
	name := path
	var r io.Reader
	if path == "-" {
		name, r = "stdin", a.stdin
		if r == nil {
			r = strings.NewReader("")
		}
	} else {
		f, err := openInput(path)
		if err != nil {
			return trace.Header{}, nil, err
		}
		defer f.Close()
		r = f
	}
	header, events, err := trace.ReadAll(r)
	if err != nil {
		return trace.Header{}, nil, traceFileError(name, err)
	}
	return header, events, nil
}

// traceLineError matches the trace reader's "trace: line N: what".
var traceLineError = regexp.MustCompile(`^trace: line ([0-9]+): `)

// traceFileError turns the trace reader's errors into FILE:LINE: what, as compilers write
// them, so that an editor can jump to the line.
func traceFileError(name string, err error) error {
	msg := err.Error()
	if m := traceLineError.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", name, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "trace: "))
}

// openInput opens a file to read, with the messages of readInput.
func openInput(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, describeFileError(path, err)
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	return f, nil
}

// trimChecker drops the "checker: " prefix, as trimPackage does "scenarios: ".
func trimChecker(err error) string {
	return strings.TrimPrefix(err.Error(), "checker: ")
}

// checkJSON is `check -json`'s object.
type checkJSON struct {
	Trace     string        `json:"trace"`
	Scenario  string        `json:"scenario,omitempty"` // from the trace's header
	Seed      uint64        `json:"seed"`
	Build     string        `json:"build,omitempty"`
	Events    int           `json:"events"`
	TraceHash string        `json:"trace_hash"`
	Reference string        `json:"reference"`
	Verdict   string        `json:"verdict"`
	Results   []checkResult `json:"results"`
	drawn
}

// checkResult is one property's result in `check -json`.
type checkResult struct {
	Property   checker.Property    `json:"property"`
	Verdict    checker.Verdict     `json:"verdict"`
	Note       string              `json:"note,omitempty"`
	Violations []checker.Violation `json:"violations"`
	Omitted    int                 `json:"omitted"`
}

func resultsForJSON(report checker.Report) []checkResult {
	results := make([]checkResult, 0, len(report.Results))
	for _, res := range report.Results {
		out := checkResult{
			Property:   res.Property,
			Verdict:    res.Verdict,
			Note:       res.Note,
			Violations: append([]checker.Violation{}, res.Violations...),
			Omitted:    res.Omitted,
		}
		results = append(results, out)
	}
	return results
}

// printCheck writes what the trace is and what it is judged against, one block per property
// (checker.Result.String), and the verdict.
func printCheck(w io.Writer, out checkJSON, report checker.Report) {
	row := func(name, value string) { fmt.Fprintf(w, "%-12s %s\n", name+":", value) }
	what := fmt.Sprintf("%s: %d events", out.Trace, out.Events)
	if out.Scenario != "" || out.Build != "" {
		what += fmt.Sprintf(" (scenario %q, seed %d, build %q)", out.Scenario, out.Seed, out.Build)
	}
	row("trace", what)
	row("trace hash", out.TraceHash)
	row("reference", out.Reference)
	fmt.Fprintln(w)
	fmt.Fprintln(w, report.String())
	fmt.Fprintln(w)
	row("verdict", out.Verdict)
}
