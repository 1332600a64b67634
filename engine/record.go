package engine

import (
	"strconv"
	"strings"
)

// Record is one data record. RID identifies it for its whole life: a source renders its
// (source, partition, offset) as the RID, and operators keep the RID of the record they
// derive an output from, so a sink's output can be matched to the input that caused it.
type Record struct {
	RID   string
	Key   string
	Value int64
}

// RID renders the stable id of the record at offset in partition of source:
// "<source>:<partition>:<offset>".
func RID(source string, partition int, offset int64) string {
	b := make([]byte, 0, len(source)+24)
	b = append(b, source...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(partition), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, offset, 10)
	return string(b)
}

// SplitRID returns the source record a RID names: its split ("<source>:<partition>", as
// snapshots list a source's offsets) and its offset there. ok is false for a RID of
// another form.
func SplitRID(rid string) (split string, offset int64, ok bool) {
	at := strings.LastIndexByte(rid, ':')
	if at <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(rid[at+1:], 10, 64)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return rid[:at], n, true
}

// rec is a Record in the form the engine moves around: the RID as an origin (a prefix in
// the job's catalog, such as "src:3:") and a number, the key as an index into the catalog's
// keys. It holds no pointers and allocates nothing, so the records of a run cost neither
// allocations nor garbage-collector scans; a Record's strings are rendered only where
// something must show them (a trace event, an encoded snapshot, the external store's rows).
type rec struct {
	origin uint32 // catalog.origins index
	key    uint32 // catalog.keys index; 0 is the empty key
	seq    int64  // the number that ends the RID: a source offset, or a token transfer
	value  int64
}
