package main

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
)

// merge is `simrun merge`: the sweep -json outputs of a sweep's shards, run on any number of
// machines, merged into what one sweep over their union prints: the same text (or, with
// -json, the same lines bar each run's wall_ns) and the same exit status. Whatever would
// make that untrue is bad input, refused with one line before anything is printed: outputs
// of different builds or of different sweeps (scenarios, scenario files, seed ranges),
// outputs whose runs overlap, missing shards (unless -partial), and files that are not whole
// sweep -json outputs (cut short, edited, concatenated).
//
// Each file is read twice, first to check it and then to merge, one line of each at a time:
// merging a million runs costs what the one sweep's summary costs (the recovery and
// checkpoint times behind its quantiles), not the size of the files.
func (a *app) merge(args []string) int {
	fs := newFlags("merge")
	asJSON := fs.Bool("json", false, "print the merged runs and summary line as sweep -json does")
	partial := fs.Bool("partial", false, "merge although shards are missing, and say which")
	files, status := a.parseCommand(fs, usageMerge, args)
	if status >= 0 {
		return status
	}
	if len(files) == 0 {
		return a.fail("merge: want the sweep -json outputs to merge (usage: simrun %s)", usageMerge)
	}
	inputs := make([]*mergeInput, len(files))
	for i, path := range files {
		in, err := readMergeInput(path)
		if err != nil {
			return a.fail("merge: %v", err)
		}
		inputs[i] = in
	}
	merged, err := checkMergeable(inputs, *partial)
	if err != nil {
		return a.fail("merge: %v", err)
	}
	if merged.Shard != nil {
		note := fmt.Sprintf("shards %s of %d (merge -partial): %s missing", joinIndexes(merged.Shard.Indexes), merged.Shard.Count, missingShards(merged.Shard))
		if *asJSON {
			fmt.Fprintln(a.stderr, "simrun: "+note)
		} else {
			fmt.Fprintln(a.stdout, note)
		}
	}

	sum := summary{labels: genericLabels(merged.Plan)}
	saved := 0
	var artifactDirs []string
	err = mergeRuns(inputs, merged.Plan, func(raw []byte, r *mergedRun) {
		res := r.result()
		sum.add(res)
		if r.Artifact != "" {
			saved++
			if dir := filepath.Dir(r.Artifact); !slices.Contains(artifactDirs, dir) {
				artifactDirs = append(artifactDirs, dir)
			}
		}
		switch {
		case *asJSON:
			a.stdout.Write(append(raw, '\n'))
		case r.Unexpected:
			a.printUnexpected(res)
			if r.Drawn != nil {
				fmt.Fprintln(a.stdout, "  drawn: "+*r.Drawn)
			}
		}
	})
	if err != nil {
		return a.fail("merge: %v", err)
	}
	all := sum.total()
	if *asJSON {
		merged.tally, merged.Scenarios = all, sum.tallies
		writeJSON(a.stdout, merged)
	} else {
		a.printSweepEnd(&sum, all, merged.Skipped, merged.StoppedEarly, saved, strings.Join(artifactDirs, ", "))
	}
	return verdictStatus(all.Unexpected, all.Limit)
}

// mergeInput is one checked sweep -json output.
type mergeInput struct {
	path    string
	summary summaryLine
}

// summaryLine is what merge reads of a summary line.
type summaryLine struct {
	Summary      bool              `json:"summary"`
	Runs         int               `json:"runs"`
	Unexpected   int               `json:"unexpected"`
	Skipped      []skippedScenario `json:"skipped"`
	StoppedEarly bool              `json:"stopped_early"`
	Build        string            `json:"build"`
	Plan         []plannedScenario `json:"plan"`
	Shard        *shardJSON        `json:"shard"`
}

// mergedRun is what merge reads of a run's line: what the summary and the report of an
// unexpected run need. The line itself is passed through as it is.
type mergedRun struct {
	Scenario        string              `json:"scenario"`
	Seed            uint64              `json:"seed"`
	Verdict         string              `json:"verdict"`
	Unexpected      bool                `json:"unexpected"`
	Why             string              `json:"why"`
	Violations      []checker.Violation `json:"violations"`
	RecoveryNanos   []int64             `json:"recovery_ns"`
	CheckpointNanos []int64             `json:"checkpoint_ns"`
	FaultsUnfired   []int               `json:"faults_unfired"`
	Artifact        string              `json:"artifact"`
	Drawn           *string             `json:"drawn"` // the generic part's runs only
}

func (r *mergedRun) result() *scenarios.Result {
	return &scenarios.Result{Scenario: r.Scenario, Seed: r.Seed, Verdict: r.Verdict, Unexpected: r.Unexpected, Why: r.Why,
		Violations: r.Violations, RecoveryNanos: r.RecoveryNanos, CheckpointNanos: r.CheckpointNanos,
		FaultsUnfired: r.FaultsUnfired, Artifact: r.Artifact}
}

// runKey orders runs as one sweep does: scenarios in plan order, seeds ascending.
type runKey struct {
	scenario int // index in the plan
	seed     uint64
}

func (k runKey) less(o runKey) bool {
	return k.scenario < o.scenario || k.scenario == o.scenario && k.seed < o.seed
}

// maxLineBytes bounds one line of a sweep's output, as the zoo's reader does.
const maxLineBytes = 64 << 20

// readMergeInput reads and checks one sweep -json output: its summary line (the last),
// then every run against it: each a run of the plan, of the file's shard, in sweep order,
// as many as the shard holds (fewer only when the sweep stopped early) and as many as the
// summary counts.
func readMergeInput(path string) (*mergeInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New(trimPackage(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a sweep -json output", path)
	}
	in, order, err := readMergeSummary(f, info.Size(), path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	scan := bufio.NewScanner(f)
	scan.Buffer(nil, maxLineBytes)
	runs, unexpected := 0, 0
	previous := runKey{scenario: -1}
	summaryAt := 0
	// A run that does not belong is reported after the scan, unless a summary line before
	// the end explains it: several outputs in one file.
	var misplaced error
	for line := 1; scan.Scan(); line++ {
		text := bytes.TrimSpace(scan.Bytes())
		if len(text) == 0 {
			continue
		}
		if summaryAt != 0 {
			return nil, fmt.Errorf("%s:%d: a line after the summary line of line %d: give each sweep's output to merge as a file of its own", path, line, summaryAt)
		}
		r, err := parseMergeLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if r == nil {
			summaryAt = line
			continue
		}
		key, err := in.check(r, order)
		switch {
		case misplaced != nil:
		case err != nil:
			misplaced = fmt.Errorf("%s:%d: %v", path, line, err)
		case !previous.less(key):
			misplaced = fmt.Errorf("%s:%d: %s seed %d is out of sweep order (or there twice)", path, line, r.Scenario, r.Seed)
		}
		previous = key
		runs++
		if r.Unexpected {
			unexpected++
		}
	}
	if err := scan.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if misplaced != nil {
		return nil, misplaced
	}
	if err := in.checkCounts(runs, unexpected); err != nil {
		return nil, err
	}
	return in, nil
}

// parseMergeLine reads one line of a sweep's -json output: a run, or nil for the summary
// line.
func parseMergeLine(text []byte) (*mergedRun, error) {
	var probe struct {
		Summary bool `json:"summary"`
	}
	if err := json.Unmarshal(text, &probe); err != nil {
		return nil, fmt.Errorf("not a line of sweep -json output: %v", err)
	}
	if probe.Summary {
		return nil, nil
	}
	var r mergedRun
	if err := json.Unmarshal(text, &r); err != nil {
		return nil, fmt.Errorf("not a run of sweep -json output: %v", err)
	}
	return &r, nil
}

// checkCounts compares the runs read, and the unexpected among them, with what the summary
// line counts and with what the file's part of the sweep holds.
func (in *mergeInput) checkCounts(runs, unexpected int) error {
	s := in.summary
	if runs != s.Runs || unexpected != s.Unexpected {
		return fmt.Errorf("%s holds %d runs, %d unexpected, but its summary line counts %d, %d unexpected: was it edited?", in.path, runs, unexpected, s.Runs, s.Unexpected)
	}
	if want := s.Shard.runsOf(s.Plan); !s.StoppedEarly && uint64(runs) != want {
		return fmt.Errorf("%s holds %d runs of the %d its part of the sweep has, and its sweep did not stop early", in.path, runs, want)
	}
	return nil
}

// readMergeSummary reads the summary line that ends the sweep output f of size bytes (at
// path) and checks what merge needs of it: a build, a plan naming each scenario once and a
// well-formed shard. It returns the input and each scenario's place in the plan.
func readMergeSummary(f *os.File, size int64, path string) (*mergeInput, map[string]int, error) {
	last, err := lastLineOfFile(f, size)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	in := &mergeInput{path: path}
	if json.Unmarshal(last, &in.summary) != nil || !in.summary.Summary {
		return nil, nil, fmt.Errorf("%s does not end in the summary line of a sweep -json output: is it one, and did its sweep finish?", path)
	}
	if in.summary.Build == "" || in.summary.Plan == nil {
		return nil, nil, fmt.Errorf("%s records no build or plan: a simrun older than merge wrote it; sweep again", path)
	}
	if err := in.summary.Shard.check(); err != nil {
		return nil, nil, fmt.Errorf("%s: shard: %v", path, err)
	}
	order := map[string]int{}
	for i, p := range in.summary.Plan {
		if _, twice := order[p.Scenario]; twice {
			return nil, nil, fmt.Errorf("%s: the plan has scenario %s twice", path, p.Scenario)
		}
		order[p.Scenario] = i
	}
	return in, order, nil
}

// check checks one run against the file's plan and shard and returns its key.
func (in *mergeInput) check(r *mergedRun, order map[string]int) (runKey, error) {
	switch r.Verdict {
	case scenarios.VerdictPass, scenarios.VerdictFail, scenarios.VerdictUnknown, scenarios.VerdictLimit:
	default:
		return runKey{}, fmt.Errorf("%s seed %d: verdict %q is none of pass, fail, unknown and limit", r.Scenario, r.Seed, r.Verdict)
	}
	i, ok := order[r.Scenario]
	if !ok {
		return runKey{}, fmt.Errorf("scenario %q is not in the plan of the summary line", r.Scenario)
	}
	if seeds := in.summary.Plan[i].Seeds; r.Seed < seeds.First || r.Seed > seeds.Last {
		return runKey{}, fmt.Errorf("%s seed %d is outside the plan's seeds %s", r.Scenario, r.Seed, seeds)
	}
	if !in.summary.Shard.holds(r.Seed) {
		return runKey{}, fmt.Errorf("%s seed %d is not in shard %s", r.Scenario, r.Seed, in.summary.Shard.describe())
	}
	return runKey{scenario: i, seed: r.Seed}, nil
}

// lastLineOfFile returns the last non-empty line of f (size bytes), reading back from its end.
func lastLineOfFile(f *os.File, size int64) ([]byte, error) {
	var tail []byte
	for end, chunk := size, int64(64<<10); end > 0; chunk *= 2 {
		start := max(0, end-chunk)
		buf := make([]byte, end-start, int64(len(tail))+end-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return nil, err
		}
		tail, end = append(buf, tail...), start
		trimmed := bytes.TrimRight(tail, " \t\r\n")
		if i := bytes.LastIndexByte(trimmed, '\n'); i >= 0 {
			return trimmed[i+1:], nil
		}
		if len(trimmed) > maxLineBytes {
			return nil, errors.New("its last line is too long")
		}
	}
	return bytes.TrimRight(tail, " \t\r\n"), nil
}

// checkMergeable checks that the inputs are parts of one sweep, disjoint, and (unless
// partial) all of it, and returns the merged summary line without its counts: the plan,
// the build, what was skipped, and the shards held when some are missing.
func checkMergeable(inputs []*mergeInput, partial bool) (*sweepSummaryJSON, error) {
	first := inputs[0]
	merged := &sweepSummaryJSON{Summary: true, Build: first.summary.Build, Plan: first.summary.Plan, Skipped: first.summary.Skipped}
	holder := map[uint64]string{} // shard index -> the file that holds it
	for _, in := range inputs {
		s := in.summary
		switch {
		case s.Build != first.summary.Build:
			return nil, fmt.Errorf("%s and %s come from different builds (%s, %s): only runs of one build merge into one sweep", first.path, in.path, first.summary.Build, s.Build)
		case planDifference(first.summary.Plan, s.Plan) != "":
			return nil, fmt.Errorf("%s and %s are outputs of different sweeps: %s", first.path, in.path, planDifference(first.summary.Plan, s.Plan))
		case !slices.Equal(first.summary.Skipped, s.Skipped):
			return nil, fmt.Errorf("%s and %s skipped different built-in scenarios", first.path, in.path)
		case (first.summary.Shard == nil) != (s.Shard == nil):
			whole, part := first, in
			if first.summary.Shard != nil {
				whole, part = in, first
			}
			return nil, fmt.Errorf("%s holds the whole sweep and %s shard %s of it: their runs overlap", whole.path, part.path, part.summary.Shard.describe())
		case s.Shard == nil && in != first:
			return nil, fmt.Errorf("%s and %s both hold the whole sweep: their runs overlap", first.path, in.path)
		case s.Shard != nil && s.Shard.Count != first.summary.Shard.Count:
			return nil, fmt.Errorf("%s is shard %s and %s shard %s: merge the shards of one count", first.path, first.summary.Shard.describe(), in.path, s.Shard.describe())
		}
		merged.StoppedEarly = merged.StoppedEarly || s.StoppedEarly
		if s.Shard == nil {
			continue
		}
		for _, i := range s.Shard.Indexes {
			if other, ok := holder[i]; ok {
				return nil, fmt.Errorf("%s and %s both hold shard %d/%d: their runs overlap", other, in.path, i, s.Shard.Count)
			}
			holder[i] = in.path
		}
	}
	if first.summary.Shard == nil {
		return merged, nil
	}
	held := &shardJSON{Count: first.summary.Shard.Count}
	for i := range holder {
		held.Indexes = append(held.Indexes, i)
	}
	slices.Sort(held.Indexes)
	if uint64(len(held.Indexes)) == held.Count {
		return merged, nil // all of them: the whole sweep
	}
	if !partial {
		return nil, fmt.Errorf("missing shards %s (the files hold %s of %d): merge every shard's output, or give -partial to merge what is here", missingShards(held), joinIndexes(held.Indexes), held.Count)
	}
	merged.Shard = held
	return merged, nil
}

// planDifference says how two plans differ, "" when they do not.
func planDifference(a, b []plannedScenario) string {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		switch {
		case x.Scenario != y.Scenario:
			return fmt.Sprintf("scenario %d is %s in one and %s in the other", i+1, x.Scenario, y.Scenario)
		case x.Seeds != y.Seeds:
			return fmt.Sprintf("%s over seeds %s in one and %s in the other", x.Scenario, x.Seeds, y.Seeds)
		case x.Digest != y.Digest:
			return fmt.Sprintf("%s is a different scenario in each (digest %s, %s)", x.Scenario, x.Digest, y.Digest)
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d scenarios in one and %d in the other", len(a), len(b))
	}
	return ""
}

// check checks a shard read from a file (nil, the whole sweep, is fine).
func (s *shardJSON) check() error {
	if s == nil {
		return nil
	}
	if s.Count == 0 || len(s.Indexes) == 0 {
		return errors.New("no count or no index")
	}
	for k, i := range s.Indexes {
		if i < 1 || i > s.Count || k > 0 && i <= s.Indexes[k-1] {
			return fmt.Errorf("indexes %v are not ascending from 1 to the count %d", s.Indexes, s.Count)
		}
	}
	return nil
}

// holds reports whether seed belongs to the shards s holds (nil: the whole sweep).
func (s *shardJSON) holds(seed uint64) bool {
	if s == nil {
		return true
	}
	_, found := slices.BinarySearch(s.Indexes, seed%s.Count+1)
	return found
}

// runsOf returns how many runs of plan the shards s holds.
func (s *shardJSON) runsOf(plan []plannedScenario) uint64 {
	var n uint64
	for _, p := range plan {
		if s == nil {
			n += p.Seeds.Count()
			continue
		}
		for _, i := range s.Indexes {
			n += (&shardFlag{index: i, count: s.Count}).countIn(p.Seeds)
		}
	}
	return n
}

// describe is "2/3", or "1,3/4" for several.
func (s *shardJSON) describe() string {
	return fmt.Sprintf("%s/%d", joinIndexes(s.Indexes), s.Count)
}

// missingShards lists the first few shards that s lacks, and how many more: "2/4, 4/4", or
// "2/1000, 3/1000, ... and 990 more".
func missingShards(s *shardJSON) string {
	const shown = 8
	var names []string
	held := 0
	for i := uint64(1); i <= s.Count && len(names) < shown; i++ {
		if held < len(s.Indexes) && s.Indexes[held] == i {
			held++
			continue
		}
		names = append(names, fmt.Sprintf("%d/%d", i, s.Count))
	}
	missing := s.Count - uint64(len(s.Indexes))
	if extra := missing - uint64(len(names)); extra > 0 {
		names = append(names, fmt.Sprintf("... and %d more", extra))
	}
	return strings.Join(names, ", ")
}

// joinIndexes is "1,3,4".
func joinIndexes(indexes []uint64) string {
	words := make([]string, len(indexes))
	for k, i := range indexes {
		words[k] = fmt.Sprint(i)
	}
	return strings.Join(words, ",")
}

// mergeRuns reads the runs of the checked inputs again and hands them to emit in the order
// one sweep over plan runs them, with each run's line as it was written.
func mergeRuns(inputs []*mergeInput, plan []plannedScenario, emit func(raw []byte, r *mergedRun)) error {
	order := map[string]int{}
	for i, p := range plan {
		order[p.Scenario] = i
	}
	var streams runStreams
	for _, in := range inputs {
		f, err := os.Open(in.path)
		if err != nil {
			return errors.New(trimPackage(err))
		}
		defer f.Close()
		scan := bufio.NewScanner(f)
		scan.Buffer(nil, maxLineBytes)
		s := &runStream{path: in.path, scan: scan, order: order}
		ok, err := s.next()
		if err != nil {
			return err
		}
		if ok {
			streams = append(streams, s)
		}
	}
	heap.Init(&streams)
	var previous *runKey
	for streams.Len() > 0 {
		s := streams[0]
		if previous != nil && !previous.less(s.key) {
			return fmt.Errorf("%s: %s seed %d twice or out of order: did a file change while merging?", s.path, s.run.Scenario, s.run.Seed)
		}
		key := s.key
		previous = &key
		emit(s.raw, &s.run)
		ok, err := s.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&streams, 0)
		} else {
			heap.Pop(&streams)
		}
	}
	return nil
}

// runStream is one input's runs, read one at a time.
type runStream struct {
	path  string
	scan  *bufio.Scanner
	order map[string]int
	raw   []byte
	run   mergedRun
	key   runKey
}

// next reads the next run, skipping the summary line; false at the end.
func (s *runStream) next() (bool, error) {
	for s.scan.Scan() {
		text := bytes.TrimSpace(s.scan.Bytes())
		if len(text) == 0 {
			continue
		}
		s.run = mergedRun{}
		var probe struct {
			Summary bool `json:"summary"`
		}
		if err := json.Unmarshal(text, &probe); err != nil {
			return false, fmt.Errorf("%s changed while merging: %v", s.path, err)
		}
		if probe.Summary {
			continue
		}
		if err := json.Unmarshal(text, &s.run); err != nil {
			return false, fmt.Errorf("%s changed while merging: %v", s.path, err)
		}
		i, ok := s.order[s.run.Scenario]
		if !ok {
			return false, fmt.Errorf("%s changed while merging: scenario %q", s.path, s.run.Scenario)
		}
		s.raw = slices.Clone(text)
		s.key = runKey{scenario: i, seed: s.run.Seed}
		return true, nil
	}
	return false, s.scan.Err()
}

// runStreams is a heap of streams by their current run's key.
type runStreams []*runStream

func (h runStreams) Len() int           { return len(h) }
func (h runStreams) Less(i, j int) bool { return h[i].key.less(h[j].key) }
func (h runStreams) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runStreams) Push(x any)        { *h = append(*h, x.(*runStream)) }
func (h *runStreams) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}
