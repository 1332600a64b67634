package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestDocsWalkthrough runs every command of docs/simrun.md as it is written, in order, in a
// fresh directory (a "> FILE" at the end of a command sends its output there), and checks
// that each exits 0 and that the output the page quotes is what they print. A go test
// command in it (the fuzzer's) is not run: its seed corpus runs as a test of its own package.
func TestDocsWalkthrough(t *testing.T) {
	data, err := os.ReadFile("../../docs/simrun.md")
	if err != nil {
		t.Fatal(err)
	}
	walkthrough(t, "docs/simrun.md", string(data), 10)
}

// TestReadmeTour runs the README's five-minute tour the same way.
func TestReadmeTour(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## A five-minute tour\n")
	if !ok {
		t.Fatal("README has no section \"## A five-minute tour\"")
	}
	tour, _, _ := strings.Cut(section, "\n## ")
	walkthrough(t, "README.md", tour, 5)
}

// walkthrough runs the simrun commands of text (the page at name) in a fresh directory and
// checks the lines it quotes, of which it wants at least minQuoted.
func walkthrough(t *testing.T, name, text string, minQuoted int) {
	t.Helper()
	inTempDir(t)
	var printed strings.Builder
	var quoted []string
	inBlock := false
	scan := bufio.NewScanner(strings.NewReader(text))
	for scan.Scan() {
		line := scan.Text()
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		command, isCommand := strings.CutPrefix(line, "go run ./cmd/simrun")
		switch {
		case isCommand:
			command, redirect, toFile := strings.Cut(command, ">")
			args := strings.Fields(command)
			if len(args) == 0 {
				// The default job, with its generic part cut to a few seeds: the whole part
				// is some 15 s on two cores and many times that under -race (see
				// TestRealDefaultJob).
				args = []string{"-generic", "1-20"}
			}
			r := realRun(args...)
			if r.code != exitOK {
				t.Fatalf("%s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
			}
			if !toFile {
				printed.WriteString(r.stdout)
				continue
			}
			writeFile(t, strings.TrimSpace(redirect), r.stdout)
			if len(jsonLines(t, r.stdout)) < 2 {
				t.Errorf("%s: want JSON lines, a run and a summary at least, got %q", line, r.stdout)
			}
		case strings.HasPrefix(line, "grep "), line == "...",
			strings.HasPrefix(line, "go test "): // go test's commands run under go test already

		default:
			quoted = append(quoted, line)
		}
	}
	for _, q := range quoted {
		if !strings.Contains(printed.String(), strings.TrimSpace(q)) {
			t.Errorf("%s quotes %q, which the commands do not print", name, q)
		}
	}
	if len(quoted) < minQuoted {
		t.Errorf("%s: only %d quoted lines found; has the walkthrough's layout changed?", name, len(quoted))
	}
}
