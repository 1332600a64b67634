package engine

import (
	"bytes"
	"errors"
)

// errVerifyMismatch reports that data read back after a write differs from what was written.
var errVerifyMismatch = errors.New("engine: data read back differs from data written")

// writeDurably writes data under key through p and calls done with nil only once the write
// is durable and, with Config.VerifyWrites, read back intact. Reading back turns a torn or
// corrupted write into a failed write at once: a corrupted snapshot is then declined before
// any checkpoint can point at it, instead of being found on restore, when the only choices
// left are a job that cannot restart or a restore from an older checkpoint that duplicates
// output already made visible.
func writeDurably(p Proc, verify bool, key string, data []byte, done func(error)) {
	p.Write(key, data, func(err error) {
		if err != nil || !verify {
			done(err)
			return
		}
		p.Read(key, func(back []byte, err error) {
			if err == nil && !bytes.Equal(back, data) {
				err = errVerifyMismatch
			}
			done(err)
		})
	})
}
