package mutate

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

// A simrun killed by a signal (the OOM killer ends a mutant that grows without bound) is the
// mutant's outcome, a hang, not an error that ends the sample.
func TestRunSimrunTakesAKillForAHang(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	_, hung, err := RunSimrun(sh, t.TempDir(), nil, time.Minute, "-c", "kill -KILL $$")
	if err != nil || !hung {
		t.Fatalf("hung %v, err %v; want a hang and no error", hung, err)
	}
	_, hung, err = RunSimrun(sh, t.TempDir(), nil, time.Minute, "-c", "exit 5")
	if err == nil || hung {
		t.Fatalf("exit 5: hung %v, err %v; want an error", hung, err)
	}
}

// The Go runtime's fatal errors (out of memory) exit 2 like simrun's bad input; they are a
// runaway mutant, a hang, while a line of simrun's own is a refusal.
func TestRunSimrunTellsARuntimeFatalErrorFromARefusal(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	_, hung, err := RunSimrun(sh, t.TempDir(), nil, time.Minute, "-c", "echo 'fatal error: out of memory' >&2; exit 2")
	if err != nil || !hung {
		t.Fatalf("fatal error: hung %v, err %v; want a hang and no error", hung, err)
	}
	_, hung, err = RunSimrun(sh, t.TempDir(), nil, time.Minute, "-c", "echo 'simrun: bad input' >&2; exit 2")
	if !errors.Is(err, ErrRefused) || hung {
		t.Fatalf("refusal: hung %v, err %v; want ErrRefused", hung, err)
	}
}
