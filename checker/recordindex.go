package checker

import (
	"hash/maphash"
	"math"
)

// recordIndex maps record ids to their index in committedOutput.records: an open-addressing
// table of indices that keeps no keys of its own (a slot's id is its record's). The replay
// looks up every record it writes and adds the ones it has not seen, and a Go map would hash
// the id twice for that (a lookup, then an insert); this finds the id or the free slot it
// goes in with one hash and one probe sequence. Each slot keeps 32 bits of its id's hash
// beside the index, so that a probe past other ids reads no record and no id bytes, and the
// table is at most half full, so that a probe seldom passes more than one or two. It is
// only ever looked up, never iterated, so its random seed cannot reach a verdict.
type recordIndex struct {
	seed  maphash.Seed
	slots []uint64 // hash<<32 | (a record's index plus one); 0 is a free slot
	used  int
}

func newRecordIndex(capacity int) recordIndex {
	x := recordIndex{seed: maphash.MakeSeed()}
	x.resize(capacity)
	return x
}

// resize makes room for n ids at a load of at most one half, without any in it.
func (x *recordIndex) resize(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	x.slots = make([]uint64, size)
	x.used = 0
}

// find returns the index of id's record, or -1, the free slot where id belongs and the tag
// (the high half of id's hash) that add files with it.
func (x *recordIndex) find(records []recordLog, id string) (k int, free *uint64, tag uint64) {
	hash := maphash.String(x.seed, id)
	tag = hash &^ math.MaxUint32
	mask := uint64(len(x.slots) - 1)
	for i := hash & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		switch {
		case *s == 0:
			return -1, s, tag
		case *s&^math.MaxUint32 == tag:
			if k := int(*s&math.MaxUint32) - 1; records[k].id == id {
				return k, nil, tag
			}
		}
	}
}

// add records that the free slot s, found (with tag) for records[k].id, now holds k, and
// grows the table when it is half full (refiling records, whose ids are all distinct).
func (x *recordIndex) add(records []recordLog, s *uint64, tag uint64, k int) {
	if k >= math.MaxUint32-1 {
		panic("checker: more record ids than the index can hold")
	}
	*s = tag | uint64(k+1)
	x.used++
	if 2*x.used > len(x.slots) {
		x.resize(x.used)
		for k := range records {
			_, free, tag := x.find(records, records[k].id)
			*free = tag | uint64(k+1)
			x.used++
		}
	}
}
