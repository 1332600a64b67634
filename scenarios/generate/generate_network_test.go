package generate

import (
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
)

// TestGenerateDrawsNetworks: the generator gives some seeds a network, some of those a
// per-link model, and keeps it within its 3ms.
func TestGenerateDrawsNetworks(t *testing.T) {
	withNetwork, withLinks := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		s := Seed(seed)
		if s.Network == nil {
			continue
		}
		withNetwork++
		withLinks += min(len(s.Network.Links), 1)
		if d := s.MaxNetworkDelay(); d > scenarios.Millis(3) {
			t.Errorf("seed %d: a delay of up to %s", seed, d)
		}
	}
	if withNetwork < 50 || withNetwork > 150 || withLinks == 0 {
		t.Errorf("%d of 200 seeds drew a network, %d with a per-link model", withNetwork, withLinks)
	}
}
