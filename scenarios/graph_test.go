package scenarios

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/faults"
)

func TestGraphShapes(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		tasks    []string
		cycle    bool
	}{
		{"pipeline-calm", []string{"source-0", "source-1", "map1-0", "map1-1", "map2-0", "map2-1", "sink-0", "sink-1"}, false},
		{"chandy-lamport-ring", []string{"p-0", "p-1", "p-2", "p-3"}, true},
		{"chandy-lamport-mesh", []string{"a", "b", "c"}, true},
		{"explicit-unaligned", []string{"src_a-0", "src_a-1", "src_b-0", "src_b-1", "merge-0", "merge-1", "sum-0", "sum-1", "sum-2", "out-0", "out-1"}, false},
	} {
		s, err := Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		g := s.Graph()
		if got := g.Tasks(); !slices.Equal(got, tc.tasks) {
			t.Errorf("%s: tasks %v, want %v", tc.scenario, got, tc.tasks)
		}
		if g.HasCycle() != tc.cycle {
			t.Errorf("%s: HasCycle = %v, want %v", tc.scenario, g.HasCycle(), tc.cycle)
		}
	}
}

func TestChannelsFollowPartitioners(t *testing.T) {
	g := Graph{
		Nodes: []Node{{Name: "a", Kind: NodeSource, Parallelism: 2}, {Name: "b", Kind: NodeMap, Parallelism: 2}, {Name: "c", Kind: NodeSink, Parallelism: 3}},
		Links: []Link{{From: "a", To: "b", Partition: PartitionForward}, {From: "b", To: "c", Partition: PartitionHash}},
	}
	want := []faults.Link{
		{From: "a-0", To: "b-0"}, {From: "a-1", To: "b-1"},
		{From: "b-0", To: "c-0"}, {From: "b-0", To: "c-1"}, {From: "b-0", To: "c-2"},
		{From: "b-1", To: "c-0"}, {From: "b-1", To: "c-1"}, {From: "b-1", To: "c-2"},
	}
	if got := g.Channels(); !slices.Equal(got, want) {
		t.Errorf("channels %v\nwant %v", got, want)
	}
	if hosts := g.Hosts(); !slices.Equal(hosts, []string{"jm", "ext", "tm-0", "tm-1", "tm-2"}) {
		t.Errorf("hosts %v", hosts)
	}
	if h := g.HostOf("c-2"); h != "tm-2" {
		t.Errorf("HostOf(c-2) = %q", h)
	}
}

func TestSystemIsValid(t *testing.T) {
	for _, s := range Builtins() {
		if err := s.System().Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}
