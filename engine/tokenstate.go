package engine

// tokenState is a token process's own state: its balance and how many transfers of its
// script it has made, which is where it resumes after a restore.
type tokenState struct {
	balance   int64
	transfers int64
}

func (s *tokenState) encode(w *stateWriter) {
	w.tag("tokens")
	w.int(s.balance)
	w.int(s.transfers)
}

func decodeTokenState(r *stateReader) *tokenState {
	r.expect("tokens")
	return &tokenState{balance: r.int(), transfers: r.int()}
}
