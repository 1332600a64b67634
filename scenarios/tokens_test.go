package scenarios

import (
	"strings"
	"testing"
)

// initial_tokens: 0 is a job without tokens, not the default 100; leaving the field out
// gives the default. The zero survives an artifact's round trip, and the job is still judged
// as a token workload, conserving its zero tokens.
func TestZeroInitialTokensMeanZero(t *testing.T) {
	file := func(tokens string) string {
		return `{"name": "no-tokens", "mode": "chandy-lamport", "topology": {"kind": "cycle", "processes": 3},
			"workload": {"kind": "tokens"` + tokens + `},
			"script": [{"op": "snapshot", "process": "p-0"}, {"op": "advance", "by": "5ms"}, {"op": "snapshot", "process": "p-1"}, {"op": "advance", "by": "5ms"}],
			"expect": {"verdict": "pass"}}`
	}
	s, err := Parse([]byte(file(`, "initial_tokens": 0`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Workload.InitialBalance(); got != 0 {
		t.Fatalf("initial_tokens 0 parses as %d", got)
	}
	if !strings.Contains(string(Marshal(s)), `"initial_tokens": 0`) {
		t.Errorf("the zero is left out of the marshalled scenario:\n%s", Marshal(s))
	}
	again, err := Parse(Marshal(s))
	if err != nil || again.Workload.InitialBalance() != 0 {
		t.Fatalf("round trip: %v, %d tokens", err, again.Workload.InitialBalance())
	}
	cfg, err := engineConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference(s, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !ref.TokenWorkload || ref.TokenTotal != 0 {
		t.Errorf("reference: token workload %v, total %d; want a token workload of 0 tokens", ref.TokenWorkload, ref.TokenTotal)
	}
	res, events := runScenario(t, s, 1)
	if res.Verdict != VerdictPass {
		t.Fatalf("%s: %s %v", res.Verdict, res.Why, res.Violations)
	}
	if asked, ended := snapshotOutcomes(events, int64(s.Checkpoint.Interval)); len(asked) != 2 || len(ended) != 2 {
		t.Errorf("scripted snapshots asked for %v, ended %v", asked, ended)
	}

	s, err = Parse([]byte(file(``)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Workload.InitialBalance(); got != defaultInitialTokens {
		t.Errorf("initial_tokens left out parses as %d, want the default %d", got, defaultInitialTokens)
	}
}
