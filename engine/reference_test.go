package engine

import (
	"strings"
	"testing"
)

// TestReferenceKeyedSum checks the reference against its definition, computed the dumb way:
// for each record, the sum of the values of its key's records up to it in partition order.
func TestReferenceKeyedSum(t *testing.T) {
	g := KeyedSumGraph(3, 50, 0, TwoPhaseCommit)
	ref, err := ComputeReference(&g, ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := g.Operators[0].Logic.(Source)
	want := make(map[string]int64)
	final := make(map[string]int64)
	for p := range spec.Partitions {
		l := newPartitionLog("src", p, spec)
		for o := int64(0); o < spec.Records; o++ {
			r := l.record(o)
			var sum int64
			for q := int64(0); q <= o; q++ {
				if prev := l.record(q); prev.Key == r.Key {
					sum += prev.Value
				}
			}
			want[r.RID] = sum
			final[r.Key] = sum
		}
	}
	got := ref.OutputValues()
	if len(got) != len(want) {
		t.Fatalf("%d output rids, want %d", len(got), len(want))
	}
	for rid, v := range want {
		if len(got[rid]) != 1 || got[rid][0] != v {
			t.Errorf("rid %s: %v, want [%d]", rid, got[rid], v)
		}
	}
	for k, v := range final {
		if ref.State["sum"][k] != v {
			t.Errorf("final state of %s: %d, want %d", k, ref.State["sum"][k], v)
		}
	}
	if ref.Offsets["src:2"] != 50 {
		t.Errorf("offsets %v", ref.Offsets)
	}
}

func TestReferenceRefusesTimingDependentGraphs(t *testing.T) {
	g := Graph{
		Operators: []Operator{
			{Name: "src", Parallelism: 2, Logic: Source{Partitions: 2, Records: 5, Keys: 1}},
			{Name: "spread", Parallelism: 2, Logic: Map{}},
			{Name: "sum", Parallelism: 2, Logic: Aggregate{Fn: Sum}},
			{Name: "out", Parallelism: 2, Logic: Sink{Type: Upsert}},
		},
		Edges: []Edge{
			{From: "src", To: "spread", Partitioning: Rebalance},
			{From: "spread", To: "sum", Partitioning: Hash},
			{From: "sum", To: "out", Partitioning: Forward},
		},
	}
	_, err := ComputeReference(&g, ReferenceOptions{})
	if err == nil || !strings.Contains(err.Error(), `aggregate "sum"`) {
		t.Errorf("got %v, want a refusal naming the aggregate", err)
	}
}

func TestReferenceBroadcastCountsDeliveries(t *testing.T) {
	g := Graph{
		Operators: []Operator{
			{Name: "src", Parallelism: 1, Logic: Source{Partitions: 1, Records: 4, Keys: 1}},
			{Name: "copy", Parallelism: 3, Logic: Map{Fn: MapFn{Op: "mul", Arg: 10}}},
			{Name: "out", Parallelism: 3, Logic: Sink{Type: TwoPhaseCommit}},
		},
		Edges: []Edge{
			{From: "src", To: "copy", Partitioning: Broadcast},
			{From: "copy", To: "out", Partitioning: Forward},
		},
	}
	ref, err := ComputeReference(&g, ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for rid, vs := range ref.OutputValues() {
		if len(vs) != 3 || vs[0] != vs[2] || vs[0]%10 != 0 {
			t.Errorf("rid %s: %v, want three copies of a multiple of 10", rid, vs)
		}
	}
}
