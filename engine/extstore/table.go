package extstore

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
	s.chunks[n-1].cells = append(s.chunks[n-1].cells, cell{rid: rid, value: value})
	s.visible++
}
