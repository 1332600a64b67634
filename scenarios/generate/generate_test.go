package generate

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// TestGenerateIsDeterministic: a seed draws the same scenario every time, which a file
// reads back unchanged, and different seeds draw different scenarios.
func TestGenerateIsDeterministic(t *testing.T) {
	seen := map[string]uint64{}
	for seed := uint64(0); seed < 200; seed++ {
		data := scenarios.Marshal(Seed(seed))
		if again := scenarios.Marshal(Seed(seed)); !bytes.Equal(data, again) {
			t.Fatalf("seed %d draws two scenarios:\n%s\n%s", seed, data, again)
		}
		parsed, err := scenarios.Parse(data)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if back := scenarios.Marshal(parsed); !bytes.Equal(data, back) {
			t.Fatalf("seed %d does not read back:\n%s\n%s", seed, data, back)
		}
		// The description names the seed; the rest must differ too.
		rest := string(bytes.Replace(data, []byte(parsed.Description), nil, 1))
		if other, dup := seen[rest]; dup {
			t.Errorf("seeds %d and %d draw the same scenario", other, seed)
		}
		seen[rest] = seed
	}
}

// TestGenerateDrawsRunnableScenarios: every draw is one this build can run and judge (no
// cycle, no output that depends on timing, a token job the engine accepts). Validation is
// Generate's own check; this one computes references, so it covers fewer seeds.
func TestGenerateDrawsRunnableScenarios(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		s := Seed(seed)
		if _, err := scenarios.NewSimulation().Plan(s, seed); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, scenarios.Marshal(s))
		}
		ref, err := scenarios.ReferenceFor(s)
		if err != nil {
			t.Fatal(err)
		}
		output := 0
		for _, e := range ref.Output {
			output += e.Count
		}
		if output > maxOutputRecords*11/10 {
			t.Errorf("seed %d: the sinks receive %d records, more than the bound %d", seed, output, maxOutputRecords)
		}
	}
}

// TestGenerateCoversTheKnobs: over a few thousand seeds, every setting the generator claims
// to draw is drawn.
func TestGenerateCoversTheKnobs(t *testing.T) {
	seen := map[string]bool{}
	mark := func(parts ...any) { seen[strings.TrimSuffix(fmt.Sprintln(parts...), "\n")] = true }
	for seed := uint64(1); seed <= 3000; seed++ {
		s := Seed(seed)
		c := s.Checkpoint
		mark("mode", s.Mode)
		mark("topology", s.Mode == scenarios.ModeChandyLamport, s.Topology.Kind)
		mark("workload", s.Workload.Kind)
		if s.Sink != nil {
			mark("sink", s.Sink.Kind)
			mark("trace each write", s.Sink.TraceEachWrite)
			mark("transaction timeout", s.Sink.TransactionTimeout != 0)
			if d := s.Sink.TransactionTimeout; d != 0 && d < s.OpenTransactionBound() {
				t.Fatalf("seed %d: transaction timeout %s is shorter than a transaction may stay open", seed, d)
			}
		}
		mark("max concurrent", s.Mode, c.MaxConcurrent)
		mark("min pause", c.MinPause != 0)
		mark("tolerable failures", *c.TolerableFailures != 3) // 3: the default Complete writes in
		mark("retained", c.Retained != 0)
		mark("inline state", c.InlineStateBytes != 0)
		mark("incremental", c.Incremental, c.Compaction != 0)
		mark("unverified writes", c.UnverifiedWrites)
		mark("initiators", s.Mode == scenarios.ModeChandyLamport && len(c.Initiators) > 0)
		mark("parallelism", s.Topology.Parallelism > 4)
		mark("script", s.Mode == scenarios.ModeChandyLamport && len(s.Script) > 0)
		mark("max virtual time", s.Limits.MaxVirtualTime != s.Limits.FaultPhase+s.Limits.HealPhase+2*s.Limits.LivenessBound)
		mark("max events", s.Limits.MaxEvents != scenarios.DefaultMaxEvents)
		for _, st := range s.Script {
			mark("step", st.Op)
		}
		for _, n := range s.Topology.Nodes {
			if n.Kind == scenarios.NodeProcess {
				mark("process tokens", n.Tokens != nil, len(s.Script) > 0)
				mark("process tokens zero", n.Tokens != nil && *n.Tokens == 0)
				mark("process name upper case", strings.ToLower(n.Name) != n.Name)
			}
		}
		ends := scenarios.Duration(int64(s.Workload.Records+s.Workload.Transfers) * s.Workload.RecordInterval.Nanos())
		mark("input ends in the fault phase", ends < s.Limits.FaultPhase)
		switch {
		case s.Swarm != nil:
			mark("faults swarm", len(s.Swarm.Kinds) == 0)
		case len(s.Faults) == 0:
			mark("faults none")
		}
		for _, e := range s.Faults {
			mark("fault", e.Fault.Kind)
			mark("trigger", e.Trigger.Type)
			// storage.lost and external.timeout are out of model in general, and in
			// model where drawn (see inModelKinds).
			if !s.InModel(e.Fault) {
				t.Fatalf("seed %d draws %s, out of model in its run", seed, e.Fault)
			}
		}
		if s.RetiredPlantedBug != "" || s.Expect.Verdict != scenarios.VerdictPass || len(s.Check) > 0 {
			t.Fatalf("seed %d: a planted bug, an expectation other than pass, or its own checks", seed)
		}
	}
	want := []string{"faults none", "faults swarm true", "faults swarm false", "input ends in the fault phase true",
		"input ends in the fault phase false", "parallelism true", "initiators true"}
	for _, m := range scenarios.Modes {
		want = append(want, "mode "+m)
	}
	for _, k := range dataflowTopologies {
		want = append(want, "topology false "+k)
	}
	want = append(want, "topology true "+scenarios.TopologyCycle, "topology true "+scenarios.TopologyExplicit)
	for _, k := range scenarios.WorkloadKinds {
		want = append(want, "workload "+k)
	}
	for _, k := range scenarios.SinkKinds {
		want = append(want, "sink "+k)
	}
	for _, m := range []string{scenarios.ModeAligned, scenarios.ModeAtLeastOnce, scenarios.ModeChandyLamport} {
		for _, n := range []string{"1", "2", "3"} {
			want = append(want, "max concurrent "+m+" "+n)
		}
	}
	for _, op := range scenarios.StepOps {
		want = append(want, "step "+op)
	}
	want = append(want, "process tokens true true", "process tokens true false", "process tokens false true", "process tokens false false",
		"process tokens zero true", "process name upper case true")
	for _, knob := range []string{"script", "max virtual time", "max events", "trace each write", "transaction timeout", "min pause", "tolerable failures", "retained", "inline state", "unverified writes"} {
		want = append(want, knob+" true", knob+" false")
	}
	for _, k := range faults.Kinds() {
		if !k.OutOfModel() || k == faults.StorageLost || k == faults.ExternalTimeout {
			want = append(want, "fault "+string(k))
		}
	}
	for _, tt := range []faults.TriggerType{faults.AtTime, faults.OnNth, faults.OnChance} {
		want = append(want, "trigger "+string(tt))
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("never drawn: %s", w)
		}
	}
}

// TestCorrectProtocolPassesGeneratedScenarios is the promise of the generator: the correct
// engine passes every scenario it draws. It runs a few dozen draws of Drawn (rapid's
// -rapid.checks when given; the repository pins rapid's seed, see TestMain), so that a
// failure shrinks by the scenario's structure; `simrun sweep -generated` runs the same space
// at scale, seed by seed.
func TestCorrectProtocolPassesGeneratedScenarios(t *testing.T) {
	if checks := flag.Lookup("rapid.checks"); checks != nil && checks.Value.String() == "100" {
		// rapid's default: too many full runs for `go test ./...`.
		checks.Value.Set("30")
		defer checks.Value.Set("100")
	}
	sim := scenarios.NewSimulation()
	rapid.Check(t, func(t *rapid.T) {
		s := Drawn().Draw(t, "scenario")
		seed := rapid.Uint64().Draw(t, "seed")
		p, res, err := scenarios.Execute(sim, s, seed, scenarios.RunOptions{})
		if err != nil {
			t.Fatalf("seed %d: drawn scenario rejected: %v\n%s", seed, err, scenarios.Marshal(s))
		}
		if !res.Unexpected {
			return
		}
		t.Fatalf("seed %d: %s: %s%s\n%s", seed, res.Verdict, res.Why, firstViolations(res), saveForReplay(p, res))
	})
}

// TestGeneratedRunsAreDeterministic: a seed's scenario, drawn afresh, runs on that seed to
// the same trace hash, here at GOMAXPROCS 1 and beside another run; another seed runs to
// another trace.
func TestGeneratedRunsAreDeterministic(t *testing.T) {
	hash := func(seed uint64) string {
		_, res, err := scenarios.Execute(scenarios.NewSimulation(), Seed(seed), seed, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res.TraceHash
	}
	seen := map[string]uint64{}
	for _, seed := range []uint64{7, 11, 404} {
		previous := runtime.GOMAXPROCS(1)
		single := hash(seed)
		runtime.GOMAXPROCS(previous)
		var beside [2]string
		var wg sync.WaitGroup
		for i := range beside {
			wg.Go(func() { beside[i] = hash(seed) })
		}
		wg.Wait()
		if beside[0] != single || beside[1] != single {
			t.Errorf("seed %d: hash %s at GOMAXPROCS 1, %v beside another run", seed, single, beside)
		}
		if other, dup := seen[single]; dup {
			t.Errorf("seeds %d and %d run to the same trace", other, seed)
		}
		seen[single] = seed
	}
}

// TestGeneratedScenariosFitTheirRuns: the generator never makes input longer than the run
// on purpose, so the bound refuses none of its draws.
func TestGeneratedScenariosFitTheirRuns(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		if err := Seed(seed).Validate("scenario"); err != nil {
			t.Errorf("generated seed %d: %v", seed, err)
		}
	}
}

// saveForReplay writes the artifact of a failed generated run where simrun can replay and
// shrink it, and says how.
func saveForReplay(p *scenarios.Plan, res *scenarios.Result) string {
	dir := filepath.Join(os.TempDir(), "ckptsim-rapid")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "(could not save an artifact: " + err.Error() + ")"
	}
	path := filepath.Join(dir, "last-generated-failure.json")
	if err := os.WriteFile(path, scenarios.MarshalArtifact(scenarios.NewArtifact(p, res, "go-test")), 0o644); err != nil {
		return "(could not save an artifact: " + err.Error() + ")"
	}
	return "replay: go run ./cmd/simrun replay " + path + "\nshrink: go run ./cmd/simrun shrink " + path
}

// firstViolations lists a failed run's first five violations, one a line, for a message.
func firstViolations(res *scenarios.Result) string {
	var why strings.Builder
	for i, v := range res.Violations {
		if i == 5 {
			break
		}
		why.WriteString("\n  " + v.String())
	}
	return why.String()
}
