package extstore

// WriteFault is what an injected fault does to one write of a sink: a batch of records
// into a transaction, an upsert batch or an append batch.
type WriteFault uint8

const (
	// WriteApplied: no fault; the store applies the write.
	WriteApplied WriteFault = iota
	// WriteRefused: the store applies none of the write and answers ErrTransient.
	WriteRefused
	// WriteLost: the write never reaches the store, and nobody is told. The writer finds
	// out from the counts it checks (Prepare's records, Confirm).
	WriteLost
)

// SetWriteHook installs fn, asked once per write before the store applies it; nil removes
// it. Fault injection draws its probabilities inside fn.
func (s *Store) SetWriteHook(fn func(writer string) WriteFault) { s.writeHook = fn }

// WriteFaultFor asks the write hook what becomes of writer's next write.
func (s *Store) WriteFaultFor(writer string) WriteFault {
	if s.writeHook == nil {
		return WriteApplied
	}
	return s.writeHook(writer)
}
