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

// getShared is storeWorld.get through GetShared.
func (w *storeWorld) getShared(key string) ([]byte, error) {
	var got []byte
	var err error
	done := false
	w.store.GetShared(w.h, key, func(v []byte, e error) { got, err, done = v, e, true })
	w.k.Run()
	if !done {
		panic("get did not complete")
	}
	return got, err
}

// TestGetSharedLendsTheStoredBytes: GetShared hands out the stored bytes themselves (what
// it saves), which a later write of the key replaces rather than changes, and detects a
// corrupt value like Get.
func TestGetSharedLendsTheStoredBytes(t *testing.T) {
	w := newStoreWorld(1)
	value := []byte("checkpoint metadata")
	if err := w.putOwned("a", value, StoreFaultNone); err != nil {
		t.Fatal(err)
	}
	got, err := w.getShared("a")
	if err != nil || len(got) == 0 || &got[0] != &value[0] {
		t.Fatalf("GetShared a: %q, %v, want the stored bytes themselves", got, err)
	}
	if err := w.putOwned("a", []byte("newer metadata"), StoreFaultNone); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte("checkpoint metadata")) {
		t.Errorf("a later write changed what an earlier GetShared read: %q", got)
	}
	if err := w.putOwned("b", []byte("spoilt"), StoreFaultCorrupt); err != nil {
		t.Fatal(err)
	}
	if _, err := w.getShared("b"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("GetShared of a corrupted put: %v, want ErrCorrupt", err)
	}
	if _, err := w.getShared("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetShared of a missing key: %v, want ErrNotFound", err)
	}
}
