package extstore

import "fmt"

// Upsert writes value under rid in the upsert table and reports how many records became
// newly visible (1 for a new rid, else 0). Rewriting a rid replaces its value; the sinks
// that use it write the same value again on replay, so readers see no change.
func (s *Store) Upsert(writer, rid string, value int64) (added int) {
	if i, ok := s.upserts[rid]; ok {
		s.upsertRows[i].Value = value
		s.upsertRows[i].Writer = writer
		return 0
	}
	s.upserts[rid] = len(s.upsertRows)
	s.upsertRows = append(s.upsertRows, Row{RID: rid, Value: value, Writer: writer})
	return 1
}

// Append appends a record; it is visible at once.
func (s *Store) Append(writer, rid string, value int64) {
	// Appends go into a chunk of their own kind at the end, so order is kept.
	n := len(s.chunks)
	if n == 0 || s.chunks[n-1].txn != "" || s.chunks[n-1].writer != writer {
		s.chunks = append(s.chunks, chunk{writer: writer})
		n++
	}
	s.chunks[n-1].cells = append(s.chunks[n-1].cells, s.name(rid, value))
	s.visible++
}

// Received notes that records first .. first+n-1 of writer's session, numbered from 0 in
// the order the session wrote them outside transactions (upserts, appends), have been
// applied. Writes travel unanswered, so the store checks the numbering instead: a batch that
// does not start where the last one ended means some were lost on the way, which Confirm
// then reports. Records of a session that is not the writer's current one (a predecessor's,
// still on the way) are not counted: nobody will confirm them.
func (s *Store) Received(writer string, session uint64, first int64, n int) {
	w := s.writers[writer]
	if w == nil || w.session != session {
		return
	}
	if first != w.plain && !w.lost {
		w.lost, w.lostFrom = true, min(first, w.plain)
	}
	w.plain = first + int64(n)
}

// Confirm reports whether the store applied every record writer's session wrote outside
// transactions, records of them: the writer asks at its checkpoints, the way a client
// flushes before it calls its writes done, and a lost one (ErrIncomplete) fails it. A writer
// no longer current gets ErrFenced.
func (s *Store) Confirm(writer string, session uint64, records int64) error {
	w := s.writers[writer]
	switch {
	case w == nil || w.session != session:
		return fmt.Errorf("%w: %s session %d is not current", ErrFenced, writer, session)
	case w.plain < records || w.lost && records > w.lostFrom:
		return fmt.Errorf("%w: %s's records up to %d did not all arrive (last batch ended at %d)", ErrIncomplete, writer, records, w.plain)
	}
	return nil
}
