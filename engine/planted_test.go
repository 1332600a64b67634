package engine

import (
	"strings"
	"testing"
)

func TestConfigTakesOnlyPlantedBugs(t *testing.T) {
	for _, b := range append(PlantedBugs(), NoBug) {
		cfg := StandardConfig()
		cfg.Bug = b
		if err := cfg.Validate(); err != nil {
			t.Errorf("planted bug %q: %v", b, err)
		}
	}
	cfg := StandardConfig()
	cfg.Bug = "off-by-two"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), `Bug "off-by-two" is not one of PlantedBugs()`) {
		t.Errorf("Validate accepted an unknown planted bug: %v", err)
	}
}

// TestSkipAheadStopsAtTheEnd checks BugSourceOffsetAhead's arithmetic: one record on in an
// unbounded partition and in a bounded one that has more, none past a bounded one's end.
func TestSkipAheadStopsAtTheEnd(t *testing.T) {
	s := &sourcePart{logs: []*partitionLog{{spec: Source{Records: 0}}, {spec: Source{Records: 10}}, {spec: Source{Records: 10}}}}
	offsets := []int64{5, 9, 10}
	s.skipAhead(offsets)
	if offsets[0] != 6 || offsets[1] != 10 || offsets[2] != 10 {
		t.Errorf("skipAhead gave %v, want [6 10 10]", offsets)
	}
}
