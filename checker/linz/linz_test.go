package linz

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

func op(client int, call, ret int64, in, out any) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Call: call, Return: ret, Input: in, Output: out}
}

func TestRegisterNeverGoesBack(t *testing.T) {
	ok := []porcupine.Operation{
		op(0, 0, 1, RegisterWrite{ID: 1}, nil),
		op(0, 2, 3, RegisterWrite{ID: 2}, nil),
		op(1, 4, 4, RegisterAtLeast{ID: 2}, nil),
		op(2, 5, 6, RegisterRead{}, uint64(2)),
	}
	if got, _ := Run(RegisterModel(), ok, time.Second, ""); got != porcupine.Ok {
		t.Fatalf("monotonic history: %v", got)
	}
	back := append(ok, op(2, 7, 8, RegisterRead{}, uint64(1)))
	if got, _ := Run(RegisterModel(), back, time.Second, ""); got != porcupine.Illegal {
		t.Fatalf("a read going back must be illegal: %v", got)
	}
}

func TestRegisterFencesStaleWrites(t *testing.T) {
	h := []porcupine.Operation{
		op(0, 0, 1, RegisterWrite{ID: 5}, nil),
		op(1, 2, 3, RegisterWrite{ID: 3}, nil), // a stale incarnation's late write
		op(2, 4, 5, RegisterRead{}, uint64(5)),
	}
	if got, _ := Run(RegisterModel(), h, time.Second, ""); got != porcupine.Ok {
		t.Fatalf("a fenced write must not move the register back: %v", got)
	}
}

func TestPendingWriteMayLandOrNot(t *testing.T) {
	for _, read := range []uint64{1, 2} {
		h := []porcupine.Operation{
			op(0, 0, 1, RegisterWrite{ID: 1}, nil),
			op(0, 2, Pending, RegisterWrite{ID: 2}, nil),
			op(1, 4, 5, RegisterRead{}, read),
		}
		if got, _ := Run(RegisterModel(), h, time.Second, ""); got != porcupine.Ok {
			t.Fatalf("recovering %d with write 2 pending: %v", read, got)
		}
	}
}

func TestCounterStartsAtItsBase(t *testing.T) {
	h := []porcupine.Operation{
		op(0, 0, 1, CounterRead{}, int64(10)),
		op(1, 2, 3, CounterAdd{N: 2}, nil),
		op(0, 4, 5, CounterRead{}, int64(12)),
	}
	if got, _ := Run(CounterModel(10), h, time.Second, ""); got != porcupine.Ok {
		t.Fatalf("counter from 10: %v", got)
	}
	if got, _ := Run(CounterModel(0), h, time.Second, ""); got != porcupine.Illegal {
		t.Fatalf("counter from 0 cannot read 10: %v", got)
	}
}

func TestRunWritesVisualizationOnlyWhenIllegal(t *testing.T) {
	dir := t.TempDir()
	bad := []porcupine.Operation{op(0, 0, 1, CounterRead{}, int64(1))}
	path := filepath.Join(dir, "bad.html")
	if got, err := Run(CounterModel(0), bad, time.Second, path); got != porcupine.Illegal || err != nil {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("visualization missing: %v", err)
	}
	good := filepath.Join(dir, "good.html")
	if got, _ := Run(CounterModel(1), bad, time.Second, good); got != porcupine.Ok {
		t.Fatalf("got %v", got)
	}
	if _, err := os.Stat(good); !os.IsNotExist(err) {
		t.Fatalf("no visualization for a linearizable history")
	}
	if _, err := Run(CounterModel(0), bad, time.Second, filepath.Join(dir, "missing", "x.html")); err == nil {
		t.Fatal("want an error for an unwritable path")
	}
}

func TestRunRefusesAnUnboundedBudget(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("want a panic for a zero timeout")
		}
	}()
	Run(CounterModel(0), nil, 0, "")
}
