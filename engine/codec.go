package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// stateWriter encodes snapshot state: varints and length-prefixed strings, written in an
// order the writer fixes (maps by sorted key), so equal state always encodes to equal bytes
// and the digest of the bytes can stand for the state.
type stateWriter struct {
	buf []byte
}

func (w *stateWriter) uint(v uint64)   { w.buf = binary.AppendUvarint(w.buf, v) }
func (w *stateWriter) int(v int64)     { w.buf = binary.AppendVarint(w.buf, v) }
func (w *stateWriter) string(s string) { w.uint(uint64(len(s))); w.buf = append(w.buf, s...) }

// byteString writes b as string writes a string, without making one of it.
func (w *stateWriter) byteString(b []byte) { w.uint(uint64(len(b))); w.buf = append(w.buf, b...) }
func (w *stateWriter) bytes() []byte       { return w.buf }

// grow makes room for n more bytes, so that a writer that knows roughly how much it will
// write allocates once.
func (w *stateWriter) grow(n int)      { w.buf = slices.Grow(w.buf, n) }
func (w *stateWriter) record(r Record) { w.string(r.RID); w.string(r.Key); w.int(r.Value) }

// compactRecord writes r exactly as record writes its Record.
func (w *stateWriter) compactRecord(c *catalog, r rec) {
	var rid [64]byte
	w.byteString(c.appendRID(rid[:0], r))
	w.string(c.keys[r.key])
	w.int(r.value)
}
func (w *stateWriter) tag(name string) { w.string(name) }

// stateReader decodes what a stateWriter wrote. The first error sticks; every read after it
// returns zero values, and err reports it, so decoding code reads straight through.
type stateReader struct {
	buf []byte
	err error
}

// maxStateString bounds one decoded string, so corrupted lengths fail cleanly.
const maxStateString = 1 << 20

var errStateTruncated = errors.New("engine: state truncated")

func (r *stateReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.err = errStateTruncated
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *stateReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.buf)
	if n <= 0 {
		r.err = errStateTruncated
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *stateReader) string() string {
	n := r.uint()
	if r.err != nil {
		return ""
	}
	if n > maxStateString || n > uint64(len(r.buf)) {
		r.err = fmt.Errorf("engine: state string of %d bytes with %d left", n, len(r.buf))
		return ""
	}
	s := string(r.buf[:n])
	r.buf = r.buf[n:]
	return s
}

func (r *stateReader) record() Record {
	return Record{RID: r.string(), Key: r.string(), Value: r.int()}
}

// compactRecords reads a count and that many records, in compact form; a record the job's
// catalog c does not know is an error, like any other corruption.
func (r *stateReader) compactRecords(c *catalog) []rec {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]rec, 0, n)
	for range n {
		record := r.record()
		if r.err != nil {
			return nil
		}
		compact, err := c.compact(record)
		if err != nil {
			r.err = err
			return nil
		}
		out = append(out, compact)
	}
	return out
}

// count reads a length and checks it against what is left, so a corrupted count cannot ask
// for a huge allocation.
func (r *stateReader) count() int {
	n := r.uint()
	if r.err == nil && n > uint64(len(r.buf)) {
		r.err = fmt.Errorf("engine: state count %d with %d bytes left", n, len(r.buf))
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// expect reads a tag and checks it, catching state written by different code.
func (r *stateReader) expect(name string) {
	if got := r.string(); r.err == nil && got != name {
		r.err = fmt.Errorf("engine: state section %q where %q was expected", got, name)
	}
}

// done reports the first error, or an error if bytes are left over.
func (r *stateReader) done() error {
	if r.err == nil && len(r.buf) > 0 {
		r.err = fmt.Errorf("engine: %d bytes of state left over", len(r.buf))
	}
	return r.err
}

// Digest returns the digest of encoded state as it appears in traces: its XXH64
// (trace.XXH64) in 16 hex digits. A digest only tells states apart within runs; it need not
// resist anyone, and SHA-256, which it was until artifact version 5, cost a twelfth of the
// standard job's instructions (a snapshot's state is some hundred bytes).
func Digest(data []byte) string {
	var digest [digestLen]byte
	return string(appendDigest(digest[:0], data))
}

// digestLen is the length of Digest's text.
const digestLen = 16

// appendDigest appends Digest(data) to dst, for callers that put the digest into a longer
// text and so save allocating it by itself.
func appendDigest(dst, data []byte) []byte {
	const digits = "0123456789abcdef"
	h := trace.XXH64(data)
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, digits[h>>uint(shift)&0xf])
	}
	return dst
}
