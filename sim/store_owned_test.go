package sim

import (
	"bytes"
	"errors"
	"testing"
)

// putOwned is storeWorld.put through PutOwned, with a fault for every put.
func (w *storeWorld) putOwned(key string, value []byte, fault StoreFaultKind) error {
	w.store.SetFaultHook(func(StoreOp) StoreFault { return StoreFault{Kind: fault} })
	defer w.store.SetFaultHook(nil)
	var err error
	done := false
	w.store.PutOwned(w.h, key, value, func(e error) { err, done = e, true })
	w.k.Run()
	if !done {
		panic("put did not complete")
	}
	return err
}

// TestPutOwnedKeepsTheCallersBytes: PutOwned stores the caller's slice itself (what it
// saves), reads still return copies, and a corrupting fault is detected on read without
// flipping a bit of the caller's bytes, which the caller may still be reading.
func TestPutOwnedKeepsTheCallersBytes(t *testing.T) {
	w := newStoreWorld(1)
	value := []byte("checkpoint state")
	if err := w.putOwned("a", value, StoreFaultNone); err != nil {
		t.Fatal(err)
	}
	if stored := w.store.records["a"].data; &stored[0] != &value[0] {
		t.Error("PutOwned stored a copy")
	}
	got, err := w.get("a")
	if err != nil || !bytes.Equal(got, value) {
		t.Fatalf("get a: %q, %v", got, err)
	}
	got[0] = '#'
	if again, _ := w.get("a"); !bytes.Equal(again, value) {
		t.Errorf("changing what a get returned changed the store: %q", again)
	}

	before := bytes.Clone(value)
	if err := w.putOwned("b", value, StoreFaultCorrupt); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(value, before) {
		t.Errorf("a corrupting fault changed the caller's bytes: %q", value)
	}
	if _, err := w.get("b"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("get of a corrupted put: %v, want ErrCorrupt", err)
	}
	if err := w.putOwned("c", value, StoreFaultTorn); err != nil {
		t.Fatal(err)
	}
	if _, err := w.get("c"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("get of a torn put: %v, want ErrCorrupt", err)
	}
	if !bytes.Equal(value, before) {
		t.Errorf("a tearing fault changed the caller's bytes: %q", value)
	}
}
