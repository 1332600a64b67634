package engine

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// Source reads a partitioned, replayable log. Record o of partition p is a pure function of
// (Seed, p, o), so a replay after failover reads exactly what the first read saw, and the
// reference model computes the same records without running the engine.
//
// Task i of a source with parallelism k reads partitions i, i+k, i+2k, ... Every key belongs
// to one partition (keys are "<source>/<partition>/<n>"), so the order of a key's records is
// the partition's order wherever they flow through forward and hash edges.
type Source struct {
	// Partitions is the number of partitions in the log, at least the parallelism.
	Partitions int
	// Records is the number of records per partition; 0 makes the source unbounded.
	Records int64
	// RatePerSecond is how many records per partition become available per second of
	// virtual time; 0 means all at once (bounded sources only), limited by backpressure.
	RatePerSecond int64
	// Keys is the number of distinct keys per partition (at least 1).
	Keys int
	// Seed chooses the keys and values; it is part of the data, not the run.
	Seed uint64
	// MaxValue bounds the values, which are drawn from 1..MaxValue (0 means 9).
	MaxValue int64
	// StaggerNanos spreads the partitions' starts over this much virtual time (rate-limited
	// sources only): partition p of n begins StaggerNanos*p/(n-1) after the first, so they
	// end apart as well, as sources whose splits differ in size do, and the job's tasks
	// finish one after another while checkpoints go on.
	StaggerNanos int64
	// Enumerated leaves the partitions to the coordinator's split enumerator, which hands
	// them to the source's tasks one at a time as each asks (Flink's FLIP-27 sources), in
	// place of task i reading partitions i, i+k, ...: a split is a partition. Bounded
	// sources only.
	Enumerated bool
}

func (Source) Kind() string              { return "source" }
func (Source) inputs() (least, most int) { return 0, 0 }
func (Source) outputs() bool             { return true }
func (s Source) validate(g *Graph, op *Operator) error {
	switch {
	case s.Enumerated && s.Partitions < 1:
		return fmt.Errorf("%d splits: an enumerated source needs one", s.Partitions)
	case s.Enumerated && s.Records == 0:
		return fmt.Errorf("an enumerated source must be bounded: its readers finish once every split is read")
	case !s.Enumerated && s.Partitions < op.Parallelism:
		return fmt.Errorf("%d partitions for parallelism %d: every task needs a partition", s.Partitions, op.Parallelism)
	case s.Records < 0:
		return fmt.Errorf("negative record count %d", s.Records)
	case s.RatePerSecond < 0:
		return fmt.Errorf("negative rate %d", s.RatePerSecond)
	case s.Records == 0 && s.RatePerSecond == 0:
		return fmt.Errorf("an unbounded source needs a rate")
	case s.Keys < 1:
		return fmt.Errorf("%d keys per partition, want at least 1", s.Keys)
	case s.MaxValue < 0:
		return fmt.Errorf("negative max value %d", s.MaxValue)
	case s.StaggerNanos < 0:
		return fmt.Errorf("negative stagger %d", s.StaggerNanos)
	case s.StaggerNanos > 0 && s.RatePerSecond == 0:
		return fmt.Errorf("a stagger needs a rate")
	}
	return nil
}

// Bounded reports whether the source ends.
func (s Source) Bounded() bool { return s.Records > 0 }

// partitionLog is one partition of a source's log.
type partitionLog struct {
	source    string
	partition int
	spec      Source
	keys      []string // keys[n] is the n-th key of the partition, rendered once
	// origin and keyIDs place the partition's records in the job's catalog (see
	// newCatalogLog); a log made for the reference has none.
	origin uint32
	keyIDs []uint32
	// partitionMix and maxValue are the parts of draw that depend only on the partition,
	// worked out once rather than per record.
	partitionMix uint64
	maxValue     uint64
	// keyMask and valueMagic make keyValue's two remainders cheap (see keyValue): keyMask
	// is len(keys)-1 when that is a power of two, else 0; valueMagic is Lemire's
	// fastmod constant for maxValue when it fits 32 bits, else 0.
	keyMask    uint64
	valueMagic uint64
}

func newPartitionLog(source string, partition int, spec Source) *partitionLog {
	keys := make([]string, spec.Keys)
	for n := range keys {
		keys[n] = sourceKey(source, partition, n)
	}
	maxValue := spec.MaxValue
	if maxValue == 0 {
		maxValue = 9
	}
	l := &partitionLog{source: source, partition: partition, spec: spec, keys: keys,
		partitionMix: spec.Seed ^ mix64(uint64(partition)+1), maxValue: uint64(maxValue)}
	if n := uint64(len(keys)); n&(n-1) == 0 {
		l.keyMask = n - 1
	}
	if l.maxValue <= math.MaxUint32 {
		l.valueMagic = math.MaxUint64/l.maxValue + 1
	}
	return l
}

// newCatalogLog is newPartitionLog for a running task: its records come out compact.
func newCatalogLog(c *catalog, source string, partition int, spec Source) *partitionLog {
	l := newPartitionLog(source, partition, spec)
	l.origin = c.origin(sourcePrefix(source, partition))
	l.keyIDs = make([]uint32, len(l.keys))
	for n, k := range l.keys {
		l.keyIDs[n] = c.key(k)
	}
	return l
}

// sourcePrefix starts the record ids of a partition: "<source>:<partition>:" (see RID).
func sourcePrefix(source string, partition int) string {
	return source + ":" + strconv.Itoa(partition) + ":"
}

// sourceKey is the n-th key of a partition: "<source>/<partition>/<n>".
func sourceKey(source string, partition, n int) string {
	return source + "/" + strconv.Itoa(partition) + "/" + strconv.Itoa(n)
}

// record returns the record at offset.
func (l *partitionLog) record(offset int64) Record {
	key, value := l.draw(offset)
	return Record{RID: RID(l.source, l.partition, offset), Key: l.keys[key], Value: value}
}

// appendRecords appends the first n records of the log, as record(0) to record(n-1) would
// return them, to dst. Their ids are rendered into one string that each slices: a reference
// of a generated scenario renders every record of every source, and an allocation per id
// was a ninth of a generated sweep's allocations.
func (l *partitionLog) appendRecords(dst []Record, n int64) []Record {
	if n <= 0 {
		return dst
	}
	l.checkRange(n - 1)
	prefix := sourcePrefix(l.source, l.partition)
	ends := make([]int, n)
	text := make([]byte, 0, n*int64(len(prefix)+len(strconv.FormatInt(n, 10))))
	for o := range n {
		text = strconv.AppendInt(append(text, prefix...), o, 10)
		ends[o] = len(text)
	}
	ids := string(text)
	start := 0
	for o := range n {
		key, value := l.draw(o)
		dst = append(dst, Record{RID: ids[start:ends[o]], Key: l.keys[key], Value: value})
		start = ends[o]
	}
	return dst
}

// appendRecs appends the n records from offset on in compact form, with the range checked
// once; the log must come from newCatalogLog. A source reads a buffer's worth at a time.
func (l *partitionLog) appendRecs(dst []rec, offset int64, n int) []rec {
	if n <= 0 {
		return dst
	}
	l.checkRange(offset)
	l.checkRange(offset + int64(n) - 1)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	for k := range dst[start:] {
		o := offset + int64(k)
		key, value := l.keyValue(l.hash(o))
		dst[start+k] = rec{origin: l.origin, key: l.keyIDs[key], seq: o, value: value}
	}
	return dst
}

// draw returns the index of the key and the value of the record at offset.
func (l *partitionLog) draw(offset int64) (key int, value int64) {
	l.checkRange(offset)
	return l.keyValue(l.hash(offset))
}

func (l *partitionLog) checkRange(offset int64) {
	if offset < 0 || (l.spec.Records > 0 && offset >= l.spec.Records) {
		panic(invariantf("engine: offset %d outside partition %s:%d of %d records", offset, l.source, l.partition, l.spec.Records))
	}
}

// hash is the hash of the seed, the partition and the offset that the record at offset is
// drawn from (keyValue). The two are apart so that each is small enough to inline.
func (l *partitionLog) hash(offset int64) uint64 {
	return mix64(l.partitionMix ^ mix64(uint64(offset)<<1|1))
}

// keyValue draws the index of a record's key and its value from its hash: h modulo the
// number of keys and h's upper half modulo maxValue. Sources draw one per record, and a
// 64-bit division takes tens of cycles, so both remainders avoid one where they can: a
// power-of-two key count is a mask, and a 32-bit remainder is two multiplications
// (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for a
// 32-bit dividend and divisor). TestKeyValueRemainders checks both against %.
func (l *partitionLog) keyValue(h uint64) (key int, value int64) {
	if l.keyMask != 0 || len(l.keys) == 1 {
		key = int(h & l.keyMask)
	} else {
		key = int(h % uint64(len(l.keys)))
	}
	if l.valueMagic != 0 {
		hi, _ := bits.Mul64(l.valueMagic*(h>>32), l.maxValue)
		value = 1 + int64(hi)
	} else {
		value = 1 + int64((h>>32)%l.maxValue)
	}
	return key, value
}

// available returns how many records of the partition exist at virtual time nowNanos: all
// of them for a source without a rate, else those whose time has come, capped at Records.
func (l *partitionLog) available(nowNanos int64) int64 {
	rate := l.spec.RatePerSecond
	if rate == 0 {
		return l.spec.Records
	}
	nowNanos -= l.startNanos()
	if nowNanos < 0 {
		return 0
	}
	// Record o becomes available at o/rate seconds after the start; computed in two steps
	// so that long runs at high rates cannot overflow.
	secs := nowNanos / 1e9
	n := secs*rate + (nowNanos%1e9)*rate/1e9 + 1
	if l.spec.Records > 0 && n > l.spec.Records {
		return l.spec.Records
	}
	return n
}

// startNanos is when the partition's first record becomes available (see StaggerNanos).
func (l *partitionLog) startNanos() int64 {
	if l.spec.StaggerNanos == 0 || l.spec.Partitions < 2 {
		return 0
	}
	return l.spec.StaggerNanos * int64(l.partition) / int64(l.spec.Partitions-1)
}

// nextAvailableNanos returns when record offset becomes available (rate > 0).
func (l *partitionLog) nextAvailableNanos(offset int64) int64 {
	rate := l.spec.RatePerSecond
	secs := offset / rate
	return l.startNanos() + secs*1e9 + ((offset%rate)*1e9+rate-1)/rate
}

// mix64 is SplitMix64's finaliser: a cheap, well-spread hash of a 64-bit value.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
