package scripttest

import (
	"strconv"
	"strings"
	"testing"
)

// counterHost is a tiny host for testing the harness: a counter that add
// raises and show prints.
func counterHost() Commands {
	n := int64(0)
	return Commands{
		"add": func(c *Command) []string {
			n += c.Int("by", 1)
			return []string{"ok"}
		},
		"show": func(c *Command) []string {
			return []string{"n=" + strconv.FormatInt(n, 10)}
		},
		"boom": func(c *Command) []string {
			var m map[string]int
			m["x"] = 1 // a bug in the host: must fail the test, not become output
			return nil
		},
		"config": func(c *Command) []string {
			var out []string
			for _, o := range c.Options() {
				out = append(out, o.Key+"="+o.Value)
			}
			return out
		},
		"name":  func(c *Command) []string { return c.ArgsExactly(1) },
		"blank": func(c *Command) []string { return []string{"a", "", "b"} },
	}
}

func TestScriptPasses(t *testing.T) {
	script := "# a comment\nadd by=2\n----\nok\n\nshow\n----\nn=2\n"
	res := runScript("ok.txt", script, counterHost())
	if res.failure != "" || len(res.mismatches) != 0 {
		t.Fatalf("failure %q, mismatches %q", res.failure, res.mismatches)
	}
	if res.rendered != script {
		t.Errorf("rendered\n%s\nwant it unchanged", res.rendered)
	}
}

func TestScriptMismatchIsReportedAndRewritten(t *testing.T) {
	res := runScript("m.txt", "add\n----\nok\n\nshow\n----\nn=5\n", counterHost())
	if res.failure != "" || len(res.mismatches) != 1 || !strings.Contains(res.mismatches[0], "m.txt:5: show") {
		t.Fatalf("failure %q, mismatches %q", res.failure, res.mismatches)
	}
	if want := "add\n----\nok\n\nshow\n----\nn=1\n"; res.rendered != want {
		t.Errorf("rendered %q, want %q", res.rendered, want)
	}
}

// TestBrokenScriptsFail is the harness's own guard: every way a script can
// be wrong must fail it, and must not be written back by -rewrite. Before
// this harness, a misspelt command rendered "panic: unknown command ..."
// as its output, -rewrite saved that, and the script passed from then on.
func TestBrokenScriptsFail(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
	}{
		{"misspelt command", "ad by=2\n----\nok\n", `unknown command "ad"`},
		{"misspelt command saved as output", "ad by=2\n----\npanic: unknown command ad\n", `unknown command "ad"`},
		{"misspelt option", "add bye=2\n----\nok\n", "add does not take bye=2"},
		{"stray argument", "show all\n----\nn=0\n", "show does not take all"},
		{"missing argument", "name\n----\n", "name wants 1 positional arguments, got 0"},
		{"option twice", "add by=1 by=2\n----\nok\n", "option by given twice"},
		{"bad value", "add by=two\n----\nok\n", "option by=two: not an integer"},
		{"panic in the host", "boom\n----\n", "panic: assignment to entry in nil map"},
		{"output that would not read back", "blank\n----\na\n", `output line "" would not read back`},
		{"no separator", "add\nok\n", `command "add" has no ---- line under it`},
		{"separator alone", "----\nok\n", "---- with no command above it"},
		{"failure stops the run", "ad\n----\nok\n\nadd by=x\n----\nok\n", `unknown command "ad"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runScript("bad.txt", tc.script, counterHost())
			if !strings.Contains(res.failure, tc.want) {
				t.Errorf("failure %q, want it to say %q", res.failure, tc.want)
			}
			if res.rendered != "" {
				t.Errorf("a broken script would be rewritten as %q", res.rendered)
			}
		})
	}
}

func TestOptionsKeepTheirOrder(t *testing.T) {
	res := runScript("o.txt", "config b=1 a=2 c=3 a->b\n----\nb=1\na=2\nc=3\n", counterHost())
	// a->b is a positional word that config did not read.
	if !strings.Contains(res.failure, "config does not take a->b") {
		t.Fatalf("failure %q", res.failure)
	}
	res = runScript("o.txt", "config b=1 a=2 c=3\n----\nb=1\na=2\nc=3\n", counterHost())
	if res.failure != "" || len(res.mismatches) != 0 {
		t.Fatalf("failure %q, mismatches %q", res.failure, res.mismatches)
	}
}

func TestEmptyOutputAndTrailer(t *testing.T) {
	cmds := Commands{"quiet": func(c *Command) []string { return nil }}
	script := "quiet\n----\n\n# the end\n"
	res := runScript("q.txt", script, cmds)
	if res.failure != "" || len(res.mismatches) != 0 || res.rendered != script {
		t.Fatalf("failure %q, mismatches %q, rendered %q", res.failure, res.mismatches, res.rendered)
	}
}
