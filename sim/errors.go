package sim

import "errors"

// Expected failures, returned to callers. They are sentinel values: compare with errors.Is.
var (
	// ErrHostDown: the sending host is down.
	ErrHostDown = errors.New("sim: host is down")
	// ErrLinkFull: the link has Capacity messages in flight; wait for the writable handler.
	ErrLinkFull = errors.New("sim: link is full")
	// ErrLinkBroken: the link is broken (see Link.Break) until repaired.
	ErrLinkBroken = errors.New("sim: link is broken")

	// ErrNotFound: no value is stored under the key.
	ErrNotFound = errors.New("sim: key not found")
	// ErrCorrupt: the stored value does not match its checksum (a torn or corrupted write).
	ErrCorrupt = errors.New("sim: stored value is corrupt")
	// ErrUnavailable: the store is unavailable; the operation had no effect.
	ErrUnavailable = errors.New("sim: store is unavailable")
	// ErrWriteFailed: the write failed and had no effect.
	ErrWriteFailed = errors.New("sim: write failed")
	// ErrReadFailed: the read failed.
	ErrReadFailed = errors.New("sim: read failed")
)
