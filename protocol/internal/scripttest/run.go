package scripttest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of the scripts in testdata")

// Func runs one command and returns the lines it rendered. It reports a
// mistake in the script with Command.Fatalf (or any panic).
type Func func(c *Command) []string

// Commands is a host's command table, by name.
type Commands map[string]Func

// Names returns the command names in sorted order.
func (cs Commands) Names() []string {
	names := make([]string, 0, len(cs))
	for name := range cs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Run runs every script that matches glob (testdata/*.txt, say) as a
// subtest named after the file. newHost builds a fresh host for each script
// and returns its commands. With -rewrite, a script whose commands all ran
// is written back with the outputs they rendered.
func Run(t *testing.T, glob string, newHost func() Commands) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no scripts match %s", glob)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			res := runScript(file, string(raw), newHost())
			for _, m := range res.mismatches {
				if !*rewrite {
					t.Error(m)
				}
			}
			if res.failure != "" {
				t.Fatal(res.failure)
			}
			if *rewrite && res.rendered != string(raw) {
				if err := os.WriteFile(file, []byte(res.rendered), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// result is what one script's run found.
type result struct {
	rendered   string   // the script with the outputs the code renders now
	mismatches []string // entries whose output differs from the file's
	failure    string   // the first script error; the run stops there
}

// runScript runs one script's commands in order against cmds.
func runScript(file, text string, cmds Commands) result {
	s, err := parse(file, text)
	if err != nil {
		return result{failure: err.Error()}
	}
	var res result
	outputs := make([][]string, 0, len(s.entries))
	for _, e := range s.entries {
		got, failure := runCommand(cmds, e.command)
		if failure != "" {
			// The host's state after a failed command is anyone's guess:
			// stop, and never write such a run back.
			res.failure = failure
			return res
		}
		outputs = append(outputs, got)
		if !slices.Equal(got, e.expected) {
			res.mismatches = append(res.mismatches, fmt.Sprintf("%s\n--- want\n%s\n--- got\n%s",
				e.command.location(), strings.Join(e.expected, "\n"), strings.Join(got, "\n")))
		}
	}
	res.rendered = s.render(outputs)
	return res
}

// runCommand runs one command and returns its output, or why the script is
// broken.
func runCommand(cmds Commands, c *Command) (out []string, failure string) {
	run, ok := cmds[c.Name]
	if !ok {
		return nil, fmt.Sprintf("%s: unknown command %q (known: %s)", c.location(), c.Name, strings.Join(cmds.Names(), " "))
	}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case scriptError:
			out, failure = nil, c.location()+": "+r.msg
		default:
			out, failure = nil, fmt.Sprintf("%s: panic: %v\n%s", c.location(), r, debug.Stack())
		}
	}()
	out = run(c)
	if unused := c.unused(); len(unused) > 0 {
		return nil, fmt.Sprintf("%s: %s does not take %s", c.location(), c.Name, strings.Join(unused, " "))
	}
	for _, line := range out {
		if strings.TrimSpace(line) == "" || line == separator {
			return nil, fmt.Sprintf("%s: output line %q would not read back; render it otherwise", c.location(), line)
		}
	}
	return out, ""
}

// CheckDocumented fails t unless the file at path (a testdata README) names
// every command of cmds in backquotes ("`name`" or "`name args`"), so that the list of
// commands cannot fall behind the host.
func CheckDocumented(t *testing.T, path string, cmds Commands) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cmds.Names() {
		if !strings.Contains(string(raw), "`"+name+"`") && !strings.Contains(string(raw), "`"+name+" ") {
			t.Errorf("%s does not document the command %s", path, name)
		}
	}
}

// Check runs the script text against cmds as Run would, without a file,
// and returns why it fails (a broken script, or the first output that
// differs), nil if it passes. Hosts use it to test that their own commands
// are strict.
func Check(file, text string, cmds Commands) error {
	res := runScript(file, text, cmds)
	switch {
	case res.failure != "":
		return errors.New(res.failure)
	case len(res.mismatches) > 0:
		return errors.New(res.mismatches[0])
	}
	return nil
}
