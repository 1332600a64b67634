package scenarios

import (
	"strings"
	"testing"
)

// TestPlantedBugFieldIsRefused: a file written when planted bugs were a scenario field is
// refused with one line that points to the bug zoo, never run on the correct engine as if
// the bug were planted.
func TestPlantedBugFieldIsRefused(t *testing.T) {
	_, err := Parse([]byte(withFields("mode", `"unaligned"`, "planted_bug", `"forget-channel-state"`)))
	want := "scenario.planted_bug: planted bugs are no longer a scenario field: forget-channel-state is a diff in the bug zoo now; hunt it with simrun zoo -bug forget-channel-state"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v, want one line containing %q", err, want)
	}
}
