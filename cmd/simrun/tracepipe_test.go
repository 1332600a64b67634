package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTraceIntoAPipeWhoseReaderStops: simrun run -trace /dev/stdout | head -1 ends once head
// has its line, instead of blocking for ever on a full pipe it holds open for reading itself;
// -trace - sends the trace to standard output and the report to standard error. It runs a
// built simrun, since only a real process has real pipes.
func TestTraceIntoAPipeWhoseReaderStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun")
	}
	exe := filepath.Join(t.TempDir(), "simrun")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, trace := range []string{"/dev/stdout", "-"} {
		cmd := exec.Command(exe, "run", "-scenario", "standard", "-seed", "1", "-trace", trace)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("-trace %s: reading the first line: %v", trace, err)
		}
		stdout.Close() // the reader goes away, as head does after its line
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done: // exit status: 0, or killed by SIGPIPE writing to standard output
		case <-time.After(2 * time.Minute): // not a time limit on the run: a hang detector
			cmd.Process.Kill()
			t.Fatalf("-trace %s: simrun still runs after its reader went away", trace)
		}
		if trace == "-" && !strings.HasPrefix(first, `{"kind":"trace.header"`) {
			t.Errorf("-trace -: the first line on standard output is %q, want the trace header", first)
		}
		if strings.Contains(stderr.String(), "panic") || strings.Contains(stderr.String(), "goroutine") {
			t.Errorf("-trace %s: stderr %q", trace, stderr.String())
		}
	}

	// The whole trace to standard output, the report to standard error.
	cmd := exec.Command(exe, "run", "-scenario", "pipeline-calm", "-seed", "1", "-trace", "-")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("-trace -: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), `{"kind":"trace.header"`) || strings.Contains(stdout.String(), "verdict:") {
		t.Errorf("-trace -: standard output is not the trace alone: %.200q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "verdict:") || !strings.Contains(stderr.String(), "trace file:  standard output") {
		t.Errorf("-trace -: the report is not on standard error: %q", stderr.String())
	}
}
