package engine

import (
	"strings"
	"testing"
)

func validGraph() Graph { return KeyedSumGraph(2, 10, 0, TwoPhaseCommit) }

// TestValidateNamesTheCulprit checks that every validation error names the operator or
// edge at fault.
func TestValidateNamesTheCulprit(t *testing.T) {
	cases := []struct {
		name   string
		change func(g *Graph)
		want   string
	}{
		{"no operators", func(g *Graph) { *g = Graph{} }, "no operators"},
		{"bad name", func(g *Graph) { g.Operators[1].Name = "Sum" }, `"Sum"`},
		{"reserved name", func(g *Graph) { g.Operators[1].Name = "coordinator" }, "reserved"},
		{"duplicate", func(g *Graph) { g.Operators[2].Name = "sum" }, `operator "sum" is defined twice`},
		{"parallelism", func(g *Graph) { g.Operators[1].Parallelism = 0 }, `operator "sum": parallelism 0`},
		{"no logic", func(g *Graph) { g.Operators[1].Logic = nil }, `operator "sum" has no logic`},
		{"unknown target", func(g *Graph) { g.Edges[1].To = "nowhere" }, `edge sum->nowhere (forward): no operator "nowhere"`},
		{"forward parallelism", func(g *Graph) { g.Operators[2].Parallelism = 3 }, "edge sum->sink (forward): forward needs equal parallelism"},
		{"duplicate edge", func(g *Graph) { g.Edges = append(g.Edges, g.Edges[0]) }, "already connected"},
		{"source input", func(g *Graph) { g.Edges = append(g.Edges, Edge{From: "sum", To: "src", Partitioning: Hash}) }, `operator "src" (source) has 1 input edges`},
		{"sink output", func(g *Graph) {
			g.Operators = append(g.Operators, Operator{Name: "after", Parallelism: 2, Logic: Map{}})
			g.Edges = append(g.Edges, Edge{From: "sink", To: "after", Partitioning: Forward})
		}, `edge sink->after (forward): operator "sink"`},
		{"aggregate not hashed", func(g *Graph) { g.Edges[0].Partitioning = Rebalance }, `operator "sum" (sum): input edge src->sum (rebalance) must be hash-partitioned`},
		{"too few partitions", func(g *Graph) { g.Operators[0].Logic = Source{Partitions: 1, Records: 5, Keys: 1} }, `operator "src" (source): 1 partitions for parallelism 2`},
		{"unbounded without rate", func(g *Graph) { g.Operators[0].Logic = Source{Partitions: 2, Keys: 1} }, "unbounded source needs a rate"},
		{"bad filter", func(g *Graph) { g.Operators[1].Logic = Filter{Modulus: 2, Remainder: 2} }, `operator "sum" (filter)`},
		{"bad map", func(g *Graph) { g.Operators[1].Logic = Map{Fn: MapFn{Op: "div"}} }, `unknown map op "div"`},
		{"key groups", func(g *Graph) { g.MaxParallelism = 1 << 16 }, "max parallelism 65536 is not in 1..32768"},
		{"too few key groups", func(g *Graph) { g.MaxParallelism = 1 }, `operator "sum": parallelism 2 is above the max parallelism 1`},
	}
	for _, c := range cases {
		g := validGraph()
		c.change(&g)
		err := g.validate(false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "engine: ") {
			t.Errorf("%s: error %q lacks the package prefix", c.name, err)
		}
	}
	g := validGraph()
	if err := g.validate(false); err != nil {
		t.Errorf("the valid graph fails: %v", err)
	}
}

func TestCyclesOnlyWhereAllowed(t *testing.T) {
	g := Graph{
		Operators: []Operator{
			{Name: "src", Parallelism: 1, Logic: Source{Partitions: 1, Records: 5, Keys: 1}},
			{Name: "mix", Parallelism: 2, Logic: Union{}},
			{Name: "loop", Parallelism: 2, Logic: Map{}},
		},
		Edges: []Edge{
			{From: "src", To: "mix", Partitioning: Rebalance},
			{From: "mix", To: "loop", Partitioning: Forward},
			{From: "loop", To: "mix", Partitioning: Forward},
		},
	}
	err := g.validate(false)
	if err == nil || !strings.Contains(err.Error(), "edge loop->mix (forward) closes a cycle") {
		t.Errorf("aligned: got %v, want the cycle named", err)
	}
	if err := g.validate(true); err != nil {
		t.Errorf("unaligned: cyclic graph refused: %v", err)
	}
}

func TestTaskIDsAndPlan(t *testing.T) {
	g := validGraph()
	want := []string{"src-0", "src-1", "sum-0", "sum-1", "sink-0", "sink-1"}
	if got := g.Tasks(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Tasks() = %v, want %v", got, want)
	}
	p := newJobPlan(&g, false)
	// Hash: every source task reaches every sum task; forward: sum-i only sink-i.
	if n := len(p.topo.Channels); n != 2*2+2 {
		t.Errorf("%d channels, want 6", n)
	}
	sum1 := p.byID["sum-1"]
	if len(sum1.inputs) != 2 || string(sum1.inputs[0].From) != "src-0" || string(sum1.inputs[1].From) != "src-1" {
		t.Errorf("sum-1 inputs %v", sum1.inputs)
	}
	if len(sum1.outputs) != 1 || string(sum1.outputs[0].To) != "sink-1" {
		t.Errorf("sum-1 outputs %v", sum1.outputs)
	}
	if ch := sum1.outEdges[0].channels; ch[0] != -1 || ch[1] != 0 {
		t.Errorf("sum-1 forward routing %v, want [-1 0]", ch)
	}
}

func TestParsePartitioning(t *testing.T) {
	for p := Forward; p <= Broadcast; p++ {
		got, err := ParsePartitioning(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePartitioning(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePartitioning("shuffle"); err == nil {
		t.Error("ParsePartitioning accepted shuffle")
	}
}
