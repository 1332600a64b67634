package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// catalog lists what compact records (rec) refer to: the prefixes of record ids and the
// keys. Everything a job's records can carry is known from its graph: sources make record
// ids "<source>:<partition>:<offset>" and keys "<source>/<partition>/<n>", a JobKind's tasks
// make ids under its Origins (engine/tokens: "<task>:<n>") and no key, and operators keep both. The catalog is built once per
// job and never changes, so every task of every attempt shares it.
type catalog struct {
	origins  []string          // record id prefixes, each ending in ':'
	originOf map[string]uint32 // prefix -> origin
	// keys are in ascending order, keys[0] = "", so that ordering key indices orders the
	// keys (keyed state is encoded in key order) and the zero rec has the empty key.
	keys      []string
	keyOf     map[string]uint32
	keyGroup  []uint64 // FNV-1a of each key, as KeyGroup hashes it
	maxKeyLen int
}

func newCatalog(g *Graph) *catalog {
	c := &catalog{originOf: make(map[string]uint32), keyOf: make(map[string]uint32)}
	keys := []string{""}
	for _, op := range g.Operators {
		switch l := op.Logic.(type) {
		case Source:
			for p := 0; p < l.Partitions; p++ {
				c.addOrigin(sourcePrefix(op.Name, p))
				for n := 0; n < l.Keys; n++ {
					keys = append(keys, sourceKey(op.Name, p, n))
				}
			}
		case JobKind:
			for _, prefix := range l.Origins(&op) {
				c.addOrigin(prefix)
			}
		}
	}
	slices.Sort(keys)
	c.keys = slices.Compact(keys)
	c.keyGroup = make([]uint64, len(c.keys))
	for i, k := range c.keys {
		c.keyOf[k] = uint32(i)
		c.keyGroup[i] = keyHash(k)
		c.maxKeyLen = max(c.maxKeyLen, len(k))
	}
	return c
}

func (c *catalog) addOrigin(prefix string) {
	if _, dup := c.originOf[prefix]; dup {
		panic(invariantf("engine: record id prefix %q twice in the catalog", prefix))
	}
	c.originOf[prefix] = uint32(len(c.origins))
	c.origins = append(c.origins, prefix)
}

// origin returns the origin of a prefix the catalog must hold.
func (c *catalog) origin(prefix string) uint32 {
	o, ok := c.originOf[prefix]
	if !ok {
		panic(invariantf("engine: record id prefix %q is not in the catalog", prefix))
	}
	return o
}

// key returns the index of a key the catalog must hold.
func (c *catalog) key(k string) uint32 {
	i, ok := c.keyOf[k]
	if !ok {
		panic(invariantf("engine: key %q is not in the catalog", k))
	}
	return i
}

// appendRID appends the record id of r.
func (c *catalog) appendRID(buf []byte, r rec) []byte {
	return trace.AppendInt(append(buf, c.origins[r.origin]...), r.seq)
}

// rid renders the record id of r.
func (c *catalog) rid(r rec) string {
	var b [64]byte
	return string(c.appendRID(b[:0], r))
}

// rids renders the record ids of records, as rid would one by one, into one string that
// each id slices: one allocation per buffer an upsert or append sink writes, not one per
// record.
func (c *catalog) rids(records []rec) []string {
	// A buffer of a few hundred records fits on the stack; a longer one spills to the heap.
	var scratch [4096]byte
	var endsArray [256]int
	text, ends := scratch[:0], endsArray[:0]
	for _, r := range records {
		text = c.appendRID(text, r)
		ends = append(ends, len(text))
	}
	all := string(text)
	ids := make([]string, len(records))
	start := 0
	for i, end := range ends {
		ids[i], start = all[start:end], end
	}
	return ids
}

// record renders r as a Record.
func (c *catalog) record(r rec) Record {
	return Record{RID: c.rid(r), Key: c.keys[r.key], Value: r.value}
}

// compact turns a Record back into a rec (restoring encoded channel state). It fails for
// a record the job cannot have made: state written by another job, or corrupted.
func (c *catalog) compact(r Record) (rec, error) {
	i := strings.LastIndexByte(r.RID, ':')
	if i < 0 {
		return rec{}, fmt.Errorf("engine: record id %q has no origin", r.RID)
	}
	origin, ok := c.originOf[r.RID[:i+1]]
	if !ok {
		return rec{}, fmt.Errorf("engine: record id %q is from no origin of this job", r.RID)
	}
	seq, err := strconv.ParseInt(r.RID[i+1:], 10, 64)
	if err != nil || strconv.FormatInt(seq, 10) != r.RID[i+1:] {
		return rec{}, fmt.Errorf("engine: record id %q does not end in a number", r.RID)
	}
	key, ok := c.keyOf[r.Key]
	if !ok {
		return rec{}, fmt.Errorf("engine: key %q of record %q is no key of this job", r.Key, r.RID)
	}
	return rec{origin: origin, key: key, seq: seq, value: r.Value}, nil
}
