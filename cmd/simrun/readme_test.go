package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestReadmeWalkthrough runs the commands of the README's "Using simrun" walkthrough, in
// order, in a fresh directory, and checks that the output it quotes is what they print. The
// long sweeps of its last part are left out: their flags are tested elsewhere.
func TestReadmeWalkthrough(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Using simrun\n")
	if !ok {
		t.Fatal("README has no section \"## Using simrun\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	walkthrough, _, _ := strings.Cut(section, "\n### Sweeps and shards\n")

	inTempDir(t)
	var printed strings.Builder
	var quoted []string
	inBlock := false
	scan := bufio.NewScanner(strings.NewReader(walkthrough))
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
			r := realRun(strings.Fields(command)...)
			if r.code != exitOK {
				t.Fatalf("%s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
			}
			printed.WriteString(r.stdout)
		case strings.HasPrefix(line, "grep "), line == "...":
		default:
			quoted = append(quoted, line)
		}
	}
	for _, q := range quoted {
		if !strings.Contains(printed.String(), strings.TrimSpace(q)) {
			t.Errorf("the README quotes %q, which the commands do not print", q)
		}
	}
	if len(quoted) < 10 {
		t.Errorf("only %d quoted lines found; has the walkthrough's layout changed?", len(quoted))
	}
}
