package scripttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// argsHost exercises every accessor a host reads a command with.
func argsHost() Commands {
	return Commands{
		"words": func(c *Command) []string {
			out := []string{"n=" + string(rune('0'+c.NArgs())), "first=" + c.Arg(0)}
			if c.Flag("verbose") {
				out = append(out, "verbose")
			}
			return append(out, "all="+strings.Join(c.Args(), ","), "mode="+c.StringOption("mode", "aligned"))
		},
		"echo": func(c *Command) []string {
			c.Args()
			c.Option("y")
			return []string{c.String()} // the line as written, spaces and all
		},
	}
}

func TestCommandAccessors(t *testing.T) {
	script := "words a verbose mode=unaligned\n----\nn=2\nfirst=a\nverbose\nall=a,verbose\nmode=unaligned\n\n" +
		"words b\n----\nn=1\nfirst=b\nall=b\nmode=aligned\n\n" +
		"echo x  y=1\n----\necho x  y=1\n"
	if err := Check("accessors.txt", script, argsHost()); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"words\n----\n", "echo x y=1 y=2\n----\n"} {
		if err := Check("bad.txt", bad, argsHost()); err == nil {
			t.Errorf("%q passed", bad)
		}
	}
}

// TestRunAndDocumented runs scripts from files, as hosts do, and checks the list of
// commands against a README.
func TestRunAndDocumented(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.txt"), []byte("add by=3\n----\nok\n\nshow\n----\nn=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Run(t, filepath.Join(dir, "*.txt"), counterHost)

	readme := filepath.Join(dir, "README.md")
	var names []string
	for _, name := range counterHost().Names() {
		names = append(names, "`"+name+"`")
	}
	if err := os.WriteFile(readme, []byte(strings.Join(names, ", ")), 0o644); err != nil {
		t.Fatal(err)
	}
	CheckDocumented(t, readme, counterHost())
	if !slices.IsSorted(counterHost().Names()) {
		t.Error("Names is not sorted")
	}
}
