package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// slotPair keeps one durable value (the id counter, the completed-checkpoint store) under
// two keys written in turn: each write goes to the key that does not hold the latest
// version known durable, tagged with a version number one above it.
//
// Why two: a write that storage tears or corrupts replaces what was under its key with
// garbage. With one key, a failed write of the completed-checkpoint store would destroy
// the store it was meant to extend, and a failed write of the counter the only record of
// the ids handed out; a coordinator that then crashed could never recover (every read of
// the key fails its checksum). With two, a failed write spoils only the older copy, the
// latest stays readable under the other key, and the next write goes to the spoiled key
// again. Recovery reads both and takes the newest version that reads back intact.
type slotPair struct {
	keys [2]string
	// latest is the slot holding the latest version known durable (-1: none), version its
	// version number.
	latest  int
	version uint64
}

func newSlotPair(name string) slotPair {
	return slotPair{keys: [2]string{name + ".0", name + ".1"}, latest: -1}
}

// next returns the slot, key and version number of the next write.
func (s *slotPair) next() (slot int, key string, version uint64) {
	slot = 0
	if s.latest == 0 {
		slot = 1
	}
	return slot, s.keys[slot], s.version + 1
}

// written records that the write of version to slot is durable.
func (s *slotPair) written(slot int, version uint64) {
	if version <= s.version {
		panic(invariantf("engine: %s: version %d written after version %d", s.keys[slot], version, s.version))
	}
	s.latest, s.version = slot, version
}

// encodeSlot frames payload with its version number.
func encodeSlot(version uint64, payload []byte) []byte {
	return append(binary.AppendUvarint(nil, version), payload...)
}

func decodeSlot(data []byte) (version uint64, payload []byte, err error) {
	v, n := binary.Uvarint(data)
	if n <= 0 {
		return 0, nil, fmt.Errorf("engine: bad slot header (%d bytes)", len(data))
	}
	return v, data[n:], nil
}

// readSlots reads both slots of s and offers accept their payloads, newest version first,
// until it takes one; s then knows that slot as the latest. A slot that is missing or
// corrupt is passed over. done gets found false when neither slot holds an accepted value
// (a new job), and an error when a read failed, which says nothing about what is stored:
// the caller retries.
func readSlots(p Proc, s *slotPair, accept func(payload []byte) bool, done func(found bool, err error)) {
	type copyOf struct {
		slot    int
		version uint64
		payload []byte
	}
	var copies []copyOf
	var read func(slot int)
	read = func(slot int) {
		if slot == len(s.keys) {
			slices.SortFunc(copies, func(a, b copyOf) int {
				switch {
				case a.version > b.version:
					return -1
				case a.version < b.version:
					return 1
				}
				return 0
			})
			for _, c := range copies {
				if accept(c.payload) {
					s.latest, s.version = c.slot, c.version
					done(true, nil)
					return
				}
			}
			done(false, nil)
			return
		}
		p.Read(s.keys[slot], func(data []byte, err error) {
			switch {
			case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
			case err != nil:
				done(false, err)
				return
			default:
				if version, payload, derr := decodeSlot(data); derr == nil {
					copies = append(copies, copyOf{slot: slot, version: version, payload: payload})
				}
			}
			read(slot + 1)
		})
	}
	read(0)
}
