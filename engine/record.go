package engine

import "strconv"

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
