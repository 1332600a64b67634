package chandylamport

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol/internal/scripttest"
)

// TestScripts runs the interaction scripts in testdata, in the format of package scripttest,
// against a scripted host (script_host_test.go): each command's output is what the host
// rendered (outputs, errors, collector results). testdata/README.md lists the commands.
// `go test ./protocol/chandylamport -run TestScripts -rewrite` rewrites the outputs from the
// current code; review the diff before committing it.
func TestScripts(t *testing.T) {
	scripttest.Run(t, "testdata/*.txt", func() scripttest.Commands { return newScriptHost().commands() })
}

func TestScriptCommandsAreDocumented(t *testing.T) {
	scripttest.CheckDocumented(t, "testdata/README.md", newScriptHost().commands())
}

func newScriptHost() *scriptHost { return &scriptHost{out: &strings.Builder{}} }

// TestScriptMistakesFail shows that the host's scripts are strict: each of these used to
// print a "bad input" or "error" line that -rewrite saved as the expected output.
func TestScriptMistakesFail(t *testing.T) {
	const start = "graph a->b\n----\nok: 2 processes, 1 channels\n\n"
	for _, tc := range []struct{ script, want string }{
		{"initate a\n----\nbad input: unknown command \"initate\"\n", `unknown command "initate"`},
		{"initiate x\n----\nerror: no process x\n", "no process x"},
		{"initiate a b\n----\n", "initiate wants 1 positional arguments, got 2"},
		{"join b a1\n----\n", `bad snapshot id "a1"`},
		{"deliver a->b\n----\n", "a->b is empty"},
		{"deliver a->b x\n----\n", "option count=x: not an integer"},
		{"send ab m\n----\n", `bad channel "ab"`},
		{"show all\n----\nnothing in flight or tracked\n", "show does not take all"},
	} {
		err := scripttest.Check("mistake.txt", start+tc.script, newScriptHost().commands())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want a failure saying %q", tc.script, err, tc.want)
		}
	}
	err := scripttest.Check("mistake.txt", "graph a->b bogus=1\n----\nok: 3 processes, 1 channels\n", newScriptHost().commands())
	if err == nil || !strings.Contains(err.Error(), "graph does not take bogus=1") {
		t.Errorf("graph with an unknown option: got %v", err)
	}
}
