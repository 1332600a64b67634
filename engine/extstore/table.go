package extstore

import "fmt"

// Upsert writes value under rid in the upsert table and reports how many records became
// newly visible (1 for a new rid, else 0). Rewriting a rid replaces its value; the sinks
// that use it write the same value again on replay, so readers see no change. The record
// counts towards the writer's session (see Confirm).
func (s *Store) Upsert(writer string, session uint64, rid string, value int64) (added int) {
	s.countPlain(writer, session)
	if i, ok := s.upserts[rid]; ok {
		s.upsertRows[i].Value = value
		s.upsertRows[i].Writer = writer
		return 0
	}
	s.upserts[rid] = len(s.upsertRows)
	s.upsertRows = append(s.upsertRows, Row{RID: rid, Value: value, Writer: writer})
	return 1
}

// Append appends a record; it is visible at once. The record counts towards the writer's
// session (see Confirm).
func (s *Store) Append(writer string, session uint64, rid string, value int64) {
	s.countPlain(writer, session)
	// Appends go into a chunk of their own kind at the end, so order is kept.
	n := len(s.chunks)
	if n == 0 || s.chunks[n-1].txn != "" || s.chunks[n-1].writer != writer {
		s.chunks = append(s.chunks, chunk{writer: writer})
		n++
	}
	s.chunks[n-1].cells = append(s.chunks[n-1].cells, s.name(rid, value))
	s.visible++
}

// countPlain counts a record written outside a transaction by writer's session. Records of
// a session that is not the writer's current one (a predecessor's, still on the way) are
// not counted: nobody will confirm them.
func (s *Store) countPlain(writer string, session uint64) {
	if w := s.writers[writer]; w != nil && w.session == session {
		w.plain++
	}
}

// Confirm reports whether the store applied all records writer's session wrote outside
// transactions: records is how many it wrote. Writes travel without an answer, so a writer
// confirms at its checkpoints that none was lost on the way (ErrIncomplete), the way a
// client flushes before it calls its writes done; a writer no longer current gets
// ErrFenced.
func (s *Store) Confirm(writer string, session uint64, records int64) error {
	w := s.writers[writer]
	switch {
	case w == nil || w.session != session:
		return fmt.Errorf("%w: %s session %d is not current", ErrFenced, writer, session)
	case w.plain != records:
		return fmt.Errorf("%w: %s applied %d of the %d records written", ErrIncomplete, writer, w.plain, records)
	}
	return nil
}
