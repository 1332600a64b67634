package mutate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// ErrNoCompile is Build's error for a mutant that does not compile: it is discarded and
// counted, not judged.
var ErrNoCompile = errors.New("mutate: the mutant does not compile")

// Build builds simrun at exe from the source tree at root with overlay (none when empty).
// A compile error of the mutated package is ErrNoCompile; a missing toolchain is another.
func Build(root, overlay, exe string) error {
	args := []string{"build", "-o", exe}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, "./cmd/simrun")...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exitErr) && overlay != "":
		return fmt.Errorf("%w: %s", ErrNoCompile, firstLine(stderr.String()))
	case errors.As(err, &exitErr):
		return fmt.Errorf("mutate: go build: %s", strings.TrimSpace(stderr.String()))
	}
	return fmt.Errorf("mutate: go build needs a Go toolchain on PATH: %v", err)
}

// UnitTests runs the tests of the mutated package (./pkg) with overlay, vet off (a vet
// complaint is not a failing test), and returns their verdict and the top-level tests that
// failed. go test's own -timeout ends a test that loops; the context, a little later, ends a
// go test that does not.
func UnitTests(root, overlay, pkg string, timeout time.Duration) (Tests, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-vet=off", "-timeout", timeout.String(), "-overlay", overlay, "./"+pkg)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err == nil {
		return TestsPassed, nil, nil
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) && ctx.Err() == nil {
		return "", nil, fmt.Errorf("mutate: go test needs a Go toolchain on PATH: %v", err)
	}
	if ctx.Err() != nil || bytes.Contains(out, []byte("panic: test timed out")) {
		return TestsHang, nil, nil
	}
	return TestsKilled, failedTests(string(out)), nil
}

// failedTests lists the top-level tests go test's output says failed, or what broke when
// none is named (a test binary that crashed).
func failedTests(out string) []string {
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- FAIL: "); ok {
			name, _, _ = strings.Cut(name, " ")
			if !strings.Contains(name, "/") && !slices.Contains(failed, name) {
				failed = append(failed, name)
			}
		}
	}
	if len(failed) == 0 {
		failed = append(failed, "(no test named: "+lastLine(out)+")")
	}
	return failed
}

// ErrRefused is RunSimrun's error when the mutated simrun exits 2: it refused to run at
// all, for instance because the mutant makes the protocol refuse every configuration.
var ErrRefused = errors.New("mutate: the mutated simrun refused to run")

// RunSimrun runs the simrun at exe with args (a sweep or an exploration with -json) for at
// most timeout, in env and in the folder dir (where artifacts no flag places land), and
// returns the runs it printed and whether it outran the timeout or its memory (killed by a
// signal, or a fatal error of the Go runtime).
// Exit status 1 is what a caught mutant looks like; 2 is ErrRefused, with what simrun said.
func RunSimrun(exe, dir string, env []string, timeout time.Duration, args ...string) ([]Run, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	runs, parseErr := ParseRuns(&stdout)
	var exitErr *exec.ExitError
	if ctx.Err() != nil || errors.As(err, &exitErr) && exitErr.ExitCode() == -1 {
		// Out of time, or killed by a signal: the kernel's OOM killer ends a mutant whose
		// simrun grows without bound, and that is the mutant's outcome, not the sample's end.
		return runs, true, nil
	}
	if err != nil && errors.As(err, &exitErr) && exitErr.ExitCode() == 2 {
		if strings.Contains(stderr.String(), "\nfatal error: ") || strings.HasPrefix(stderr.String(), "fatal error: ") {
			// The Go runtime gave up (out of memory, a stack that outgrew its limit) and
			// exits 2 too: the mutant ran away, as with the OOM killer above.
			return runs, true, nil
		}
		return runs, false, fmt.Errorf("%w: %s", ErrRefused, lastLine(stderr.String()))
	}
	// 1, 3 and 4 report verdicts (unexpected, limits only, nondeterminism): the runs were made.
	if err != nil && !(errors.As(err, &exitErr) && slices.Contains([]int{1, 3, 4}, exitErr.ExitCode())) {
		return runs, false, fmt.Errorf("mutate: simrun %s: %v: %s", strings.Join(args, " "), err, lastLine(stderr.String()))
	}
	return runs, false, parseErr
}

// HasCommand reports whether the simrun at exe knows command, from its help.
func HasCommand(exe, command string) bool {
	out, _ := exec.Command(exe, "help").CombinedOutput()
	return bytes.Contains(out, []byte("simrun "+command+" "))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "#") { // go build's "# package" heading
			return line
		}
	}
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TempDir makes a directory for one mutant's files: under keep as NAME when keep is set
// (kept), else a temporary one that remove deletes.
func TempDir(keep, name string) (dir string, remove func(), err error) {
	if keep != "" {
		dir = keep + string(os.PathSeparator) + name
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	dir, err = os.MkdirTemp("", "simrun-mutate-")
	return dir, func() { os.RemoveAll(dir) }, err
}
