package engine

import (
	"bytes"
	"errors"
	"time"
)

// errVerifyMismatch reports that data read back after a write differs from what was written.
var errVerifyMismatch = errors.New("engine: data read back differs from data written")

// readBackRetry is the pause before reading a written value back again after a read that
// failed (as opposed to one that found the value wrong).
const readBackRetry = 20 * time.Millisecond

// writeWaiter is told how a durable write ended (writeDurablyFor). A caller that has an
// object per write already (a pending snapshot) passes it, instead of a closure made for the
// write.
type writeWaiter interface {
	writeDone(err error)
}

// writeDoneFunc lets a function wait for a write.
type writeDoneFunc func(error)

func (f writeDoneFunc) writeDone(err error) { f(err) }

// writeDurably writes data under key through p and calls done with nil only once the write
// is durable and, with verify, read back intact. Reading back turns a torn or corrupted
// write into a failed write at once: a corrupted snapshot is then declined before any
// checkpoint can point at it, instead of being found on restore, when the only choices
// left are a job that cannot restart or a restore from an older checkpoint that duplicates
// output already made visible.
//
// done gets an error only when the write is known not to hold data: storage refused it, or
// what is stored is missing, corrupt or different. A read-back that merely failed says
// nothing about the write, which may well be durable; reporting it as failed would let a
// write the caller treats as failed become visible later (a completed checkpoint its
// coordinator aborted, say). So a failed read-back is retried until it gives an answer.
func writeDurably(p Proc, verify bool, key string, data []byte, done func(error)) {
	writeDurablyFor(p, verify, key, data, writeDoneFunc(done))
}

// writeDurablyFor is writeDurably telling w.
func writeDurablyFor(p Proc, verify bool, key string, data []byte, w writeWaiter) {
	p.Write(key, data, func(err error) {
		if err != nil || !verify {
			w.writeDone(err)
			return
		}
		readBack(p, key, data, w)
	})
}

func readBack(p Proc, key string, data []byte, w writeWaiter) {
	p.Read(key, func(back []byte, err error) {
		switch {
		case err == nil && !bytes.Equal(back, data):
			err = errVerifyMismatch
		case err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrCorrupt):
			p.After(readBackRetry, func() { readBack(p, key, data, w) })
			return
		}
		w.writeDone(err)
	})
}

// deleteDurably deletes key through p and calls done once the key is gone: a failed delete
// is issued again after readBackRetry, and with verify a delete the store acknowledged is
// read back and issued again if the key is still there. State nobody deletes stays in the
// store for good: a delete is retried for as long as p lives, never given up.
func deleteDurably(p Proc, verify bool, key string, done func()) {
	p.Delete(key, func(err error) {
		switch {
		case err != nil:
			p.After(readBackRetry, func() { deleteDurably(p, verify, key, done) })
		case verify:
			checkDeleted(p, key, done)
		default:
			done()
		}
	})
}

// checkDeleted reads key after its delete was acknowledged: deleted again if found, read
// again if the read failed.
func checkDeleted(p Proc, key string, done func()) {
	p.Read(key, func(_ []byte, err error) {
		switch {
		case errors.Is(err, ErrNotFound):
			done()
		case err == nil || errors.Is(err, ErrCorrupt):
			deleteDurably(p, true, key, done)
		default:
			p.After(readBackRetry, func() { checkDeleted(p, key, done) })
		}
	})
}
