package checker

import (
	"hash/maphash"
	"math"
)

// recordIndex maps record ids to their index in committedOutput.records: an open-addressing
// table of indices that keeps no keys of its own (a slot's id is its record's). The replay
// looks up every record it writes and adds the ones it has not seen, and a Go map would hash
// the id twice for that (a lookup, then an insert); this finds the id or the free slot it
// goes in with one hash and one probe sequence. It is only ever looked up, never iterated,
// so its random seed cannot reach a verdict.
type recordIndex struct {
	seed  maphash.Seed
	slots []int32 // a record's index plus one; 0 is a free slot
	used  int
}

func newRecordIndex(capacity int) recordIndex {
	x := recordIndex{seed: maphash.MakeSeed()}
	x.resize(capacity)
	return x
}

// resize makes room for n ids at a load of at most three quarters, without any in it.
func (x *recordIndex) resize(n int) {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	x.slots = make([]int32, size)
	x.used = 0
}

// find returns the index of id's record, or -1 and the free slot where id belongs.
func (x *recordIndex) find(records []recordLog, id string) (int, *int32) {
	mask := uint64(len(x.slots) - 1)
	for i := maphash.String(x.seed, id) & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if *s == 0 {
			return -1, s
		}
		if k := int(*s - 1); records[k].id == id {
			return k, nil
		}
	}
}

// add records that the free slot s, found for records[k].id, now holds k, and grows the
// table when it is three quarters full (refiling records, whose ids are all distinct).
func (x *recordIndex) add(records []recordLog, s *int32, k int) {
	if k >= math.MaxInt32-1 {
		panic("checker: more record ids than the index can hold")
	}
	*s = int32(k + 1)
	x.used++
	if x.used*4 > len(x.slots)*3 {
		x.resize(2 * x.used)
		for k := range records {
			_, free := x.find(records, records[k].id)
			*free = int32(k + 1)
			x.used++
		}
	}
}
