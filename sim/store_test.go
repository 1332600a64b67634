package sim

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// storeWorld is one host and one store; each operation is issued and the kernel run until it
// completes, so the test can compare every answer against a map.
type storeWorld struct {
	k     *Kernel
	h     *Host
	store *Store
}

func newStoreWorld(seed uint64) *storeWorld {
	w := &storeWorld{k: New(Config{Seed: seed})}
	w.store = w.k.NewStore("disk", StoreConfig{Latency: ms, Jitter: 2 * ms})
	w.h = w.k.AddHost("h", func(*Host) {})
	w.h.Start()
	return w
}

// put writes value under key; it scribbles over value once the put is issued, since the
// store must have taken its own copy.
func (w *storeWorld) put(key string, value []byte) (err error) {
	done := false
	w.store.Put(w.h, key, value, func(e error) { err, done = e, true })
	for i := range value {
		value[i] = '#'
	}
	w.k.Run()
	if !done {
		panic("put did not complete")
	}
	return err
}

func (w *storeWorld) get(key string) (value []byte, err error) {
	done := false
	w.store.Get(w.h, key, func(v []byte, e error) { value, err, done = v, e, true })
	w.k.Run()
	if !done {
		panic("get did not complete")
	}
	return value, err
}

func (w *storeWorld) list(prefix string) (keys []string, err error) {
	done := false
	w.store.List(w.h, prefix, func(k []string, e error) { keys, err, done = k, e, true })
	w.k.Run()
	if !done {
		panic("list did not complete")
	}
	return keys, err
}

// TestStoreMatchesMapAcrossCrashes compares puts, deletes, gets and prefix lists against a
// plain map while the host crashes and restarts between operations: the store must answer
// exactly like the map, whatever the host went through.
func TestStoreMatchesMapAcrossCrashes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newStoreWorld(rapid.Uint64().Draw(t, "seed"))
		model := map[string][]byte{}
		keyGen := rapid.SampledFrom([]string{"a", "ab", "abc", "b", "ba", "c/1", "c/2", "c/10"})
		t.Repeat(map[string]func(*rapid.T){
			"put": func(t *rapid.T) {
				key, value := keyGen.Draw(t, "key"), rapid.SliceOfN(rapid.Byte(), 0, 16).Draw(t, "value")
				model[key] = slices.Clone(value)
				if err := w.put(key, value); err != nil {
					t.Fatalf("put: %v", err)
				}
			},
			"delete": func(t *rapid.T) {
				key := keyGen.Draw(t, "key")
				done := false
				w.store.Delete(w.h, key, func(err error) {
					if err != nil {
						t.Fatalf("delete: %v", err)
					}
					done = true
				})
				w.k.Run()
				if !done {
					t.Fatal("delete did not complete")
				}
				delete(model, key)
			},
			"get": func(t *rapid.T) {
				key := keyGen.Draw(t, "key")
				value, err := w.get(key)
				want, ok := model[key]
				switch {
				case !ok && !errors.Is(err, ErrNotFound):
					t.Fatalf("get %q: %q, %v; want ErrNotFound", key, value, err)
				case ok && (err != nil || !bytes.Equal(value, want)):
					t.Fatalf("get %q: %q, %v; want %q", key, value, err, want)
				}
			},
			"list": func(t *rapid.T) {
				prefix := rapid.SampledFrom([]string{"", "a", "ab", "b", "c/", "c/1", "z"}).Draw(t, "prefix")
				keys, err := w.list(prefix)
				var want []string
				for _, key := range slices.Sorted(maps.Keys(model)) {
					if strings.HasPrefix(key, prefix) {
						want = append(want, key)
					}
				}
				if err != nil || !slices.Equal(keys, want) {
					t.Fatalf("list %q: %v, %v; want %v", prefix, keys, err, want)
				}
			},
			"restart": func(t *rapid.T) { w.h.Restart() },
		})
	})
}

// TestTornAndCorruptWritesAreDetected: a torn or corrupted put is acknowledged, and every
// later read of the key reports ErrCorrupt, whatever the value (empty values included).
func TestTornAndCorruptWritesAreDetected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newStoreWorld(rapid.Uint64().Draw(t, "seed"))
		kind := rapid.SampledFrom([]StoreFaultKind{StoreFaultNone, StoreFaultTorn, StoreFaultCorrupt}).Draw(t, "fault")
		value := rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(t, "value")
		w.store.SetFaultHook(func(StoreOp) StoreFault { return StoreFault{Kind: kind} })
		if err := w.put("k", slices.Clone(value)); err != nil {
			t.Fatalf("put with fault %v: %v", kind, err)
		}
		got, err := w.get("k")
		peeked, peekErr := w.store.Peek("k")
		if kind == StoreFaultNone {
			if err != nil || !bytes.Equal(got, value) || peekErr != nil || !bytes.Equal(peeked, value) {
				t.Fatalf("clean write read back as %q, %v / %q, %v", got, err, peeked, peekErr)
			}
			return
		}
		if !errors.Is(err, ErrCorrupt) || !errors.Is(peekErr, ErrCorrupt) {
			t.Fatalf("%v write of %q read back as %q, %v / %v", kind, value, got, err, peekErr)
		}
	})
}

// TestCrashDropsCompletionButNotThePut: the issuer crashes while its put is in flight; the
// put still lands, its completion never runs, and the next incarnation reads the value.
func TestCrashDropsCompletionButNotThePut(t *testing.T) {
	w := newStoreWorld(1)
	completions := 0
	w.store.Put(w.h, "k", []byte("v"), func(error) { completions++ })
	w.k.At(0, func() { w.h.Crash() })
	w.k.Run()
	if completions != 0 {
		t.Fatal("a completion reached a crashed host")
	}
	if v, err := w.store.Peek("k"); err != nil || string(v) != "v" {
		t.Fatalf("peek after the issuer crashed: %q, %v", v, err)
	}
	w.h.Start()
	if v, err := w.get("k"); err != nil || string(v) != "v" {
		t.Fatalf("get by the next incarnation: %q, %v", v, err)
	}
}

func TestStoreFaultKinds(t *testing.T) {
	cases := []struct {
		fault   StoreFault
		wantErr error
		stored  bool
	}{
		{StoreFault{Kind: StoreFaultFail}, ErrWriteFailed, false},
		{StoreFault{Kind: StoreFaultLostAfterAck}, nil, false},
		{StoreFault{ExtraLatency: time.Second}, nil, true},
	}
	for _, c := range cases {
		w := newStoreWorld(1)
		w.store.SetFaultHook(func(op StoreOp) StoreFault {
			if op.Kind != OpPut || op.Key != "k" || op.Size != 1 || op.Host != w.h {
				t.Errorf("hook saw %+v", op)
			}
			return c.fault
		})
		err := w.put("k", []byte("v"))
		_, peekErr := w.store.Peek("k")
		if !errors.Is(err, c.wantErr) || (peekErr == nil) != c.stored {
			t.Errorf("%+v: put %v, peek %v; want %v, stored=%v", c.fault, err, peekErr, c.wantErr, c.stored)
		}
		if c.fault.ExtraLatency > 0 && w.k.Now() < TimeAt(c.fault.ExtraLatency) {
			t.Errorf("slow write completed at %v", w.k.Now())
		}
	}
}

func TestStoreUnavailableWindow(t *testing.T) {
	w := newStoreWorld(1)
	if err := w.put("k", []byte("old")); err != nil {
		t.Fatal(err)
	}
	w.store.SetUnavailable(true)
	if err := w.put("k", []byte("new")); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("put while unavailable: %v", err)
	}
	if _, err := w.get("k"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("get while unavailable: %v", err)
	}
	w.store.SetUnavailable(false)
	if v, err := w.get("k"); err != nil || string(v) != "old" {
		t.Fatalf("after the outage: %q, %v", v, err)
	}
}

// TestPutOwnedIfChecksStandingAsItLands: a put whose writer lost its standing while it was
// in flight is refused and leaves the key as it was; one that kept it lands.
func TestPutOwnedIfChecksStandingAsItLands(t *testing.T) {
	w := newStoreWorld(1)
	standing := true
	var errs []error
	w.store.PutOwnedIf(w.h, "k", []byte("old"), func() bool { return true }, func(err error) { errs = append(errs, err) })
	w.k.Run()
	w.store.PutOwnedIf(w.h, "k", []byte("new"), func() bool { return standing }, func(err error) { errs = append(errs, err) })
	standing = false
	w.k.Run()
	if len(errs) != 2 || errs[0] != nil || !errors.Is(errs[1], ErrWriteFailed) {
		t.Fatalf("completions %v, want nil then ErrWriteFailed", errs)
	}
	if v, err := w.store.Peek("k"); err != nil || string(v) != "old" {
		t.Fatalf("after a refused put the key holds %q, %v; want old", v, err)
	}
}

// TestDeletingCoversTheDeleteInFlight: a key reads as deleting from the delete's issue to
// its apply instant, whether the delete then takes effect, fails or its issuer crashed.
func TestDeletingCoversTheDeleteInFlight(t *testing.T) {
	for _, fault := range []StoreFaultKind{StoreFaultNone, StoreFaultFail} {
		w := newStoreWorld(1)
		if err := w.put("k", []byte("v")); err != nil {
			t.Fatal(err)
		}
		w.store.SetFaultHook(func(StoreOp) StoreFault { return StoreFault{Kind: fault} })
		w.store.Delete(w.h, "k", func(error) {})
		w.store.Delete(w.h, "k", func(error) {})
		w.h.Crash()
		if !w.store.Deleting("k") || w.store.Deleting("other") {
			t.Fatalf("%v: in flight: Deleting(k) = %v, Deleting(other) = %v", fault, w.store.Deleting("k"), w.store.Deleting("other"))
		}
		w.k.Run()
		_, err := w.store.Peek("k")
		if w.store.Deleting("k") || (err == nil) != (fault == StoreFaultFail) {
			t.Fatalf("%v: applied: Deleting(k) = %v, peek %v", fault, w.store.Deleting("k"), err)
		}
	}
}
