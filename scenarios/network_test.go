package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/sim"
)

// tokensTriangle is a chandy-lamport job on three processes, each on its own host (N1 on
// tm-0, N2 on tm-1, N3 on tm-2), making random transfers, with the network section given.
func tokensTriangle(network string) string {
	return `{
  "name": "latency",
  "mode": "chandy-lamport",
  "topology": {"kind": "explicit",
    "nodes": [{"name": "N1", "kind": "process"}, {"name": "N2", "kind": "process"}, {"name": "N3", "kind": "process"}],
    "links": [{"from": "N1", "to": "N2"}, {"from": "N2", "to": "N3"}, {"from": "N3", "to": "N1"}, {"from": "N2", "to": "N1"}]},
  "workload": {"kind": "tokens", "transfers": 60, "record_interval": "2ms"},
  "checkpoint": {"interval": "20ms"},
  "network": ` + network + `,
  "limits": {"fault_phase": "500ms", "heal_phase": "100ms", "liveness_bound": "1s"},
  "expect": {"verdict": "pass"}
}`
}

func TestNetworkErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		name, network, want string
	}{
		{"unknown kind", `{"latency": {"kind": "gaussian"}}`,
			`scenario.network.latency.kind: "gaussian" is not one of fixed, uniform, exponential`},
		{"no kind", `{"latency": {"value": "1ms"}}`, "scenario.network.latency.kind: is required"},
		{"min above max", `{"latency": {"kind": "uniform", "min": "5ms", "max": "1ms"}}`,
			"scenario.network.latency: min 5ms is above max 1ms"},
		{"uniform without max", `{"latency": {"kind": "uniform", "min": "1ms"}}`,
			"scenario.network.latency.max: is required by kind uniform"},
		{"negative", `{"latency": {"kind": "fixed", "value": "-1ms"}}`,
			"scenario.network.latency.value: must be >= 0, not -1ms"},
		{"too long", `{"latency": {"kind": "fixed", "value": "1m"}}`,
			"scenario.network.latency.value: must be at most 10s, not 1m0s"},
		{"cap below mean", `{"latency": {"kind": "exponential", "mean": "2ms", "cap": "1ms"}}`,
			"scenario.network.latency: cap 1ms is below the mean 2ms"},
		{"exponential without cap", `{"latency": {"kind": "exponential", "mean": "2ms"}}`,
			"scenario.network.latency.cap: is required by kind exponential"},
		{"field of another kind", `{"latency": {"kind": "fixed", "value": "1ms", "mean": "1ms"}}`,
			"scenario.network.latency.mean: not used by kind fixed"},
		{"bare number", `{"latency": {"kind": "fixed", "value": 3}}`,
			"scenario.network.latency.value: must be a string"},
		{"unknown field", `{"delay": {}}`, "scenario.network.delay: unknown field"},
		{"per-link kind", `{"links": [{"from": "N1", "to": "N2", "latency": {"kind": "slow"}}]}`,
			`scenario.network.links[0].latency.kind: "slow" is not one of`},
		{"unknown process", `{"links": [{"from": "N1", "to": "N9", "latency": {"kind": "fixed", "value": "1ms"}}]}`,
			`scenario.network.links[0].to: "N9" is not a task, a process or the coordinator`},
		{"missing end", `{"links": [{"to": "N2", "latency": {"kind": "fixed", "value": "1ms"}}]}`,
			`scenario.network.links[0].from: is required`},
		{"no such channel", `{"links": [{"from": "N1", "to": "N3", "latency": {"kind": "fixed", "value": "1ms"}}]}`,
			`scenario.network.links[0]: no channel from "N1" to "N3"`},
		{"listed twice", `{"links": [{"from": "N1", "to": "N2", "latency": {"kind": "fixed", "value": "1ms"}},
			{"from": "N1", "to": "N2", "latency": {"kind": "fixed", "value": "1ms"}}]}`,
			`scenario.network.links[1]: the channel from "N1" to "N2" is already given a latency by links[0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tokensTriangle(tc.network)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse error %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// TestNetworkOneModelPerHostLink: two channels that share a host link (source-0 -> sum-0
// and sum-0 -> sink-0 both run on tm-0) may be given one model, not two.
func TestNetworkOneModelPerHostLink(t *testing.T) {
	entries := func(second string) string {
		return `{"links": [
			{"from": "source-0", "to": "sum-0", "latency": {"kind": "fixed", "value": "1ms"}},
			{"from": "sum-0", "to": "sink-0", "latency": ` + second + `}]}`
	}
	_, err := Parse([]byte(withField("network", entries(`{"kind": "fixed", "value": "2ms"}`))))
	want := "scenario.network.links[1]: sum-0 -> sink-0 runs on host link tm-0->tm-0, as source-0 -> sum-0 of links[0] does, with another latency (fixed 2ms, not fixed 1ms): one host link has one model"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Parse error %v, want %q", err, want)
	}
	s, err := Parse([]byte(withField("network", entries(`{"kind": "fixed", "value": "1ms"}`))))
	if err != nil {
		t.Fatalf("one model given twice: %v", err)
	}
	if hl := s.latencyHostLinks(); len(hl) != 1 || hl[0].From != "tm-0" || hl[0].To != "tm-0" || len(hl[0].Entries) != 2 {
		t.Errorf("host links %+v, want tm-0->tm-0 from both entries", hl)
	}
}

func TestNetworkRoundTrip(t *testing.T) {
	network := `{"latency": {"kind": "uniform", "min": "0s", "max": "5ms"},
		"links": [{"from": "N1", "to": "N2", "latency": {"kind": "fixed", "value": "0s"}},
		          {"from": "coordinator", "to": "N3", "latency": {"kind": "exponential", "mean": "1ms", "cap": "3ms"}}]}`
	s, err := Parse([]byte(tokensTriangle(network)))
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(Marshal(s))
	if err != nil {
		t.Fatalf("does not parse back: %v\n%s", err, Marshal(s))
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("round trip changed the scenario (-want +got):\n%s", diff)
	}
	c := s.Clone()
	c.Network.Latency.Max = Millis(9)
	c.Network.Links[0].Latency.Value = Millis(9)
	if s.Network.Latency.Max != Millis(5) || s.Network.Links[0].Latency.Value != 0 {
		t.Error("a clone shares the network section")
	}
	if !strings.Contains(string(Marshal(s)), `"kind": "exponential"`) {
		t.Errorf("marshalled without the model:\n%s", Marshal(s))
	}
	plain, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Network != nil || strings.Contains(string(Marshal(plain)), "network") {
		t.Error("a scenario without a network section gains one")
	}
}

// newRun assembles the run of p without running it, for tests that drive its kernel.
func newRun(p *Plan, opts RunOptions) (*simRun, error) {
	cfg, ref, err := runnable(p)
	if err != nil {
		return nil, err
	}
	return newRunWith(p, opts, cfg, ref)
}

// linkDelays runs s on seed, watching every sim link: for each, the delay of every message
// delivered, in send order (messages pair up in order because links are FIFO, which it
// checks: each delivery is of the message sent first among those still in flight).
func linkDelays(t *testing.T, s *Scenario, seed uint64) (map[string][]time.Duration, *Result) {
	t.Helper()
	p, err := PlanFor(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRun(p, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type inFlight struct {
		msg any
		at  sim.Time
	}
	pending := map[*sim.Link][]inFlight{}
	delays := map[string][]time.Duration{}
	k := r.job.Kernel
	r.job.Env.SetObserver(func(ev sim.Event) {
		switch ev.Kind {
		case sim.EventSend:
			pending[ev.Link] = append(pending[ev.Link], inFlight{ev.Message, k.Now()})
		case sim.EventDrop, sim.EventDeliver:
			q := pending[ev.Link]
			if len(q) == 0 || q[0].msg != ev.Message {
				t.Fatalf("link %s: %v of a message that is not the first in flight: FIFO broken", ev.Link, ev.Kind)
			}
			pending[ev.Link] = q[1:]
			if ev.Kind == sim.EventDeliver {
				delays[ev.Link.Name()] = append(delays[ev.Link.Name()], k.Now().Sub(q[0].at))
			}
		}
	})
	res, err := r.run()
	if err != nil {
		t.Fatal(err)
	}
	return delays, res
}

// TestNetworkLatencyDelays runs a token job with a uniform network, one fixed link and one
// exponential link, and measures every message: the fixed link delivers exactly its value
// later, the uniform links within their bounds, the exponential link within its cap and not
// at one value; each host link keeps FIFO order.
func TestNetworkLatencyDelays(t *testing.T) {
	s, err := Parse([]byte(tokensTriangle(`{"latency": {"kind": "uniform", "min": "1ms", "max": "5ms"},
		"links": [{"from": "N1", "to": "N2", "latency": {"kind": "fixed", "value": "3ms"}},
		          {"from": "N2", "to": "N3", "latency": {"kind": "exponential", "mean": "1ms", "cap": "4ms"}}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	delays, res := linkDelays(t, s, 1)
	if res.Unexpected {
		t.Errorf("verdict %s: %s %v", res.Verdict, res.Why, res.Violations)
	}
	for name, ds := range delays {
		lo, hi := time.Millisecond, 5*time.Millisecond
		switch name {
		case "tm-0->tm-1":
			lo, hi = 3*time.Millisecond, 3*time.Millisecond
		case "tm-1->tm-2":
			lo = 0
			hi = 4 * time.Millisecond
			distinct := map[time.Duration]bool{}
			for _, d := range ds {
				distinct[d] = true
			}
			if len(distinct) < len(ds)/2 {
				t.Errorf("%s: %d distinct delays of %d: not exponential", name, len(distinct), len(ds))
			}
		}
		if strings.HasSuffix(name, "->"+strings.Split(name, "->")[0]) {
			lo, hi = 20*time.Microsecond, 20*time.Microsecond // a self-link keeps its loopback delay
		}
		for _, d := range ds {
			if d < lo || d > hi {
				t.Fatalf("%s: a message took %v, outside [%v, %v]", name, d, lo, hi)
			}
		}
	}
	for _, name := range []string{"tm-0->tm-1", "tm-1->tm-2", "tm-2->tm-0", "tm-1->tm-0"} {
		if len(delays[name]) < 20 {
			t.Errorf("%s carried %d messages, too few to judge", name, len(delays[name]))
		}
	}
}

// TestNetworkLatencyDataflow: a dataflow job takes the global model on every link between
// hosts; a per-link entry on a channel between tasks of one host (source-0 -> sum-0, on
// tm-0) sets that host's link to itself, while tm-1's keeps its loopback delay; the job
// passes.
func TestNetworkLatencyDataflow(t *testing.T) {
	s, err := Parse([]byte(withField("network", `{"latency": {"kind": "fixed", "value": "2ms"},
		"links": [{"from": "source-0", "to": "sum-0", "latency": {"kind": "fixed", "value": "1ms"}}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	delays, res := linkDelays(t, s, 2)
	if res.Unexpected {
		t.Errorf("verdict %s: %s %v", res.Verdict, res.Why, res.Violations)
	}
	crossed := 0
	for name, ds := range delays {
		want := 2 * time.Millisecond
		if from, to, _ := strings.Cut(name, "->"); from == to {
			want = 20 * time.Microsecond
		}
		if name == "tm-0->tm-0" {
			want = time.Millisecond
		}
		for _, d := range ds {
			if d != want {
				t.Fatalf("%s: a message took %v, want %v", name, d, want)
			}
		}
		if want == 2*time.Millisecond {
			crossed += len(ds)
		}
	}
	if crossed == 0 || len(delays["tm-0->tm-0"]) == 0 || len(delays["tm-1->tm-1"]) == 0 {
		t.Errorf("%d messages crossed between hosts, %d and %d stayed on tm-0 and tm-1", crossed, len(delays["tm-0->tm-0"]), len(delays["tm-1->tm-1"]))
	}
}

// TestNetworkLatencyDeterministic: a scenario and seed give one trace hash; the built-in
// delay written out as a model gives the hash of the file without it, draw for draw; and a
// model changes the run.
func TestNetworkLatencyDeterministic(t *testing.T) {
	hash := func(network string, seed uint64) string {
		t.Helper()
		s, err := Parse([]byte(tokensTriangle(network)))
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := Execute(NewSimulation(), s, seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unexpected {
			t.Errorf("%s seed %d: %s: %s", network, seed, res.Verdict, res.Why)
		}
		return res.TraceHash
	}
	model := `{"latency": {"kind": "exponential", "mean": "2ms", "cap": "10ms"}}`
	if a, b := hash(model, 3), hash(model, 3); a != b {
		t.Errorf("one seed, two hashes: %s, %s", a, b)
	}
	if a, b := hash(model, 3), hash(model, 4); a == b {
		t.Error("seeds 3 and 4 gave one hash")
	}
	builtin := hash(`{}`, 3)
	if explicit := hash(`{"latency": {"kind": "uniform", "min": "500us", "max": "700us"}}`, 3); explicit != builtin {
		t.Errorf("the built-in delay written out hashes %s, without it %s", explicit, builtin)
	}
	if hash(model, 3) == builtin {
		t.Error("an exponential network did not change the run")
	}
}
