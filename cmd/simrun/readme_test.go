package main

import (
	"os"
	"strings"
	"testing"
)

// TestDocsWalkthrough: docs/simrun.md's commands are those of the scripts tour.txtar and
// simrun.txtar, which TestScripts runs with exact outputs, and the lines it quotes are in
// the outputs they pin.
func TestDocsWalkthrough(t *testing.T) {
	data, err := os.ReadFile("../../docs/simrun.md")
	if err != nil {
		t.Fatal(err)
	}
	quotesScript(t, "docs/simrun.md", string(data), "testdata/script/tour.txtar", "testdata/script/simrun.txtar")
}

// TestReadmeTour: the README's five-minute tour is the script testdata/script/tour.txtar,
// which TestScripts runs with exact outputs; every command the tour gives is in it, and every
// line it quotes is in the outputs it pins.
func TestReadmeTour(t *testing.T) {
	quotesScript(t, "README.md", readmeSection(t, "A five-minute tour"), "testdata/script/tour.txtar")
}

// TestReadmeStop: the README's stop-with-savepoint example is the script
// testdata/script/lifecycle.txtar.
func TestReadmeStop(t *testing.T) {
	quotesScript(t, "README.md", readmeSection(t, "Stopping a job with a savepoint"), "testdata/script/lifecycle.txtar")
}

// TestReadmeSplits: the README's split source is the script testdata/script/splits.txtar.
func TestReadmeSplits(t *testing.T) {
	quotesScript(t, "README.md", readmeSection(t, "Sources that take their splits from the coordinator"), "testdata/script/splits.txtar")
}

// TestReadmeRescale: the README's rescale example is the script testdata/script/rescale.txtar.
func TestReadmeRescale(t *testing.T) {
	quotesScript(t, "README.md", readmeSection(t, "Rescaling a job"), "testdata/script/rescale.txtar")
}

// readmeSection returns the README's section headed "## heading", up to the next one.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", "## "+heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// quotesScript checks that the simrun commands of text (the page at name) are run by the
// scripts, and that the lines text quotes from their output are in the outputs the scripts
// pin. A command's "> FILE" is the script's cp of its stdout; the bare default job is
// TestRealDefaultJob's. Shell and go test lines are not checked.
// It returns the json blocks of text, for the caller to check.
func quotesScript(t *testing.T, name, text string, scripts ...string) []string {
	t.Helper()
	var pinned strings.Builder
	for _, script := range scripts {
		data, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		pinned.Write(data)
	}
	var jsonBlocks []string
	var commands, quoted int
	inBlock, info := false, ""
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(line, "```"); ok {
			inBlock, info = !inBlock, rest
			if inBlock && info == "json" {
				jsonBlocks = append(jsonBlocks, "")
			}
			continue
		}
		command, isCommand := strings.CutPrefix(line, "go run ./cmd/simrun")
		switch {
		case !inBlock, line == "", line == "...", strings.HasPrefix(line, "grep "), strings.HasPrefix(line, "go test "):
		case info == "json":
			jsonBlocks[len(jsonBlocks)-1] += line + "\n"
		case isCommand:
			commands++
			command, _, _ = strings.Cut(command, " >")
			if command != "" && !strings.Contains(pinned.String(), "\nexec simrun"+command+"\n") {
				t.Errorf("%s gives %q, which no script of %v runs", name, line, scripts)
			}
		default:
			quoted++
			if !strings.Contains(pinned.String(), "\n"+line+"\n") {
				t.Errorf("%s quotes %q, which no script of %v pins", name, line, scripts)
			}
		}
	}
	if commands < 2 || quoted < 3 {
		t.Errorf("%s: %d commands and %d quoted lines found; has its layout changed?", name, commands, quoted)
	}
	return jsonBlocks
}
