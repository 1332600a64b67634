package chandylamport

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden outputs in testdata/*.txt")

// TestScripts runs the interaction scripts in testdata. A script is text: lines that start
// with "> " are inputs, run in order against a scripted host; the lines under each input are
// what it rendered (outputs, errors, collector results). Lines starting with "#" and blank
// lines are comments. `go test ./protocol/chandylamport -run TestScripts -rewrite` rewrites
// the rendered lines from the current code; review the diff before committing it.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scripts in testdata")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := string(raw)
			got := runScript(want)
			if *rewrite {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s differs from the current code (-file +now); rerun with -rewrite if the change is intended:\n%s", file, diff)
			}
		})
	}
}

// runScript replays the inputs of a script and returns the script with freshly rendered
// outputs under each input.
func runScript(script string) string {
	var out strings.Builder
	h := &scriptHost{out: &out}
	for line := range strings.Lines(script) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "> "):
			out.WriteString(line + "\n")
			h.run(strings.Fields(strings.TrimPrefix(line, "> ")))
		case line == "" || strings.HasPrefix(line, "#"):
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}
