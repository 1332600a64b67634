package scenarios

import "testing"

func BenchmarkZZStandardScenario(b *testing.B) {
	s, _ := Lookup(StandardName)
	for b.Loop() {
		for seed := uint64(1); seed <= 5; seed++ {
			if _, _, err := Execute(NewSimulation(), s, seed, RunOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
