package linz

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// limits are ample for the small histories of these tests.
var limits = Limits{Steps: 100_000, Timeout: time.Minute}

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
	if got, _ := Run(RegisterModel(), ok, limits, nil); got.Result != porcupine.Ok {
		t.Fatalf("monotonic history: %v", got)
	}
	back := append(ok, op(2, 7, 8, RegisterRead{}, uint64(1)))
	if got, _ := Run(RegisterModel(), back, limits, nil); got.Result != porcupine.Illegal {
		t.Fatalf("a read going back must be illegal: %v", got)
	}
}

func TestRegisterFencesStaleWrites(t *testing.T) {
	h := []porcupine.Operation{
		op(0, 0, 1, RegisterWrite{ID: 5}, nil),
		op(1, 2, 3, RegisterWrite{ID: 3}, nil), // a stale incarnation's late write
		op(2, 4, 5, RegisterRead{}, uint64(5)),
	}
	if got, _ := Run(RegisterModel(), h, limits, nil); got.Result != porcupine.Ok {
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
		if got, _ := Run(RegisterModel(), h, limits, nil); got.Result != porcupine.Ok {
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
	if got, _ := Run(CounterModel(10), h, limits, nil); got.Result != porcupine.Ok {
		t.Fatalf("counter from 10: %v", got)
	}
	if got, _ := Run(CounterModel(0), h, limits, nil); got.Result != porcupine.Illegal {
		t.Fatalf("counter from 0 cannot read 10: %v", got)
	}
}

func TestRunWritesVisualizationOnlyWhenIllegal(t *testing.T) {
	bad := []porcupine.Operation{op(0, 0, 1, CounterRead{}, int64(1))}
	var picture bytes.Buffer
	if got, err := Run(CounterModel(0), bad, limits, &picture); got.Result != porcupine.Illegal || err != nil {
		t.Fatalf("got %v, %v", got, err)
	}
	if picture.Len() == 0 {
		t.Fatal("visualization missing")
	}
	var good bytes.Buffer
	if got, _ := Run(CounterModel(1), bad, limits, &good); got.Result != porcupine.Ok {
		t.Fatalf("got %v", got)
	}
	if good.Len() != 0 {
		t.Fatalf("no visualization for a linearizable history")
	}
	if _, err := Run(CounterModel(0), bad, limits, failingWriter{}); err == nil {
		t.Fatal("want an error for a writer that fails")
	}
}

func TestRunRefusesAnUnboundedBudget(t *testing.T) {
	for _, l := range []Limits{{Steps: 0, Timeout: time.Second}, {Steps: 10, Timeout: 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("want a panic for limits %+v", l)
				}
			}()
			Run(CounterModel(0), nil, l, nil)
		}()
	}
}

// hardHistory is forty concurrent additions of 2 and a read of an odd count in their midst:
// no linearization exists, and porcupine must try every subset of the additions to be sure.
func hardHistory() []porcupine.Operation {
	var h []porcupine.Operation
	for i := range 40 {
		h = append(h, op(i, 0, 100, CounterAdd{N: 2}, nil))
	}
	return append(h, op(40, 1, 99, CounterRead{}, int64(41)))
}

// The step budget decides when a search gives up, so the outcome is Unknown after exactly
// the same number of steps on every run, however long the steps took. The safety net is an
// hour here: it never fires.
func TestRunGivesUpAfterItsStepsTheSameEveryTime(t *testing.T) {
	l := Limits{Steps: 5000, Timeout: time.Hour}
	first, _ := Run(CounterModel(0), hardHistory(), l, nil)
	if first.Result != porcupine.Unknown || !first.OutOfSteps || first.TimedOut || first.Steps != l.Steps {
		t.Fatalf("want unknown after %d steps, got %+v", l.Steps, first)
	}
	for range 3 {
		if again, _ := Run(CounterModel(0), hardHistory(), l, nil); again != first {
			t.Fatalf("outcomes differ: %+v and %+v", first, again)
		}
	}
	// A history decided within the budget says how many steps it took, the same each time.
	easy := hardHistory()[:40]
	easy = append(easy, op(40, 1, 99, CounterRead{}, int64(80)))
	ok, _ := Run(CounterModel(0), easy, l, nil)
	if ok.Result != porcupine.Ok || ok.OutOfSteps || ok.Steps == 0 || ok.Steps > l.Steps {
		t.Fatalf("want ok within the budget, got %+v", ok)
	}
	if again, _ := Run(CounterModel(0), easy, l, nil); again != ok {
		t.Fatalf("outcomes differ: %+v and %+v", ok, again)
	}
}

// Running out of steps is Unknown, not Illegal, so no visualization is written for it.
func TestRunWritesNoVisualizationWhenOutOfSteps(t *testing.T) {
	var picture bytes.Buffer
	got, err := Run(CounterModel(0), hardHistory(), Limits{Steps: 5000, Timeout: time.Hour}, &picture)
	if got.Result != porcupine.Unknown || err != nil {
		t.Fatalf("got %+v, %v", got, err)
	}
	if picture.Len() != 0 {
		t.Fatal("a visualization was written for an undecided history")
	}
}

// The wall clock only backs the step budget up: when it fires first, the outcome says so.
func TestRunTimeoutIsTheSafetyNet(t *testing.T) {
	got, _ := Run(CounterModel(0), hardHistory(), Limits{Steps: 1 << 62, Timeout: time.Millisecond}, nil)
	if got.Result != porcupine.Unknown || !got.TimedOut || got.OutOfSteps {
		t.Fatalf("want a timed-out unknown, got %+v", got)
	}
}

func TestRunRefusesAPartitionedModel(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("want a panic for a partitioned model")
		}
	}()
	m := CounterModel(0)
	m.Partition = func(h []porcupine.Operation) [][]porcupine.Operation { return [][]porcupine.Operation{h} }
	Run(m, nil, limits, nil)
}

// failingWriter refuses every write, like a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestRunNamesTheClients: the picture's rows say whose they are, each starting with the
// name of the task or incarnation its client stands for.
func TestRunNamesTheClients(t *testing.T) {
	bad := []porcupine.Operation{op(0, 2, 3, CounterAdd{N: 1}, nil), op(1, 5, 6, CounterRead{}, int64(2))}
	var picture bytes.Buffer
	if got, err := Run(CounterModel(0), bad, limits, &picture, "sink-0", "reader-0"); got.Result != porcupine.Illegal || err != nil {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, want := range []string{`"sink-0"`, `"reader-0"`, "client 1 is reader-0"} {
		if !bytes.Contains(picture.Bytes(), []byte(want)) {
			t.Errorf("the picture does not name a client %s", want)
		}
	}
}
