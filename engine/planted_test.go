package engine

import (
	"strings"
	"testing"
)

func TestPlantedBugsParseByName(t *testing.T) {
	for _, b := range append(PlantedBugs(), NoBug) {
		if got, err := ParsePlantedBug(string(b)); err != nil || got != b {
			t.Errorf("ParsePlantedBug(%q) = %q, %v", b, got, err)
		}
	}
	_, err := ParsePlantedBug("off-by-two")
	if err == nil || !strings.Contains(err.Error(), `no planted bug "off-by-two" (one of source-offset-ahead, forget-channel-state, commit-on-abort, skip-state-restore)`) {
		t.Errorf("unknown bug: %v", err)
	}
	cfg := StandardConfig()
	cfg.Bug = "off-by-two"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "off-by-two") {
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
