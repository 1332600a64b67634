package engine

import "github.com/ckptsim/ckptsim/engine/extstore"

// Requests to the external store process and its replies. A sink addresses the store by
// the process name "extstore"; replies carry the nonce of the requesting incarnation so
// that a restarted sink ignores replies meant for its predecessor.

type storeOp uint8

const (
	opInit storeOp = iota + 1
	opBegin
	opWrite
	opPrepare
	opCommit
	opRecover
	opUpsert
	opAppend
	opRead
	opAbort
	opConfirm
)

var storeOpNames = [...]string{opInit: "init", opBegin: "begin", opWrite: "write", opPrepare: "prepare",
	opCommit: "commit", opRecover: "recover", opUpsert: "upsert", opAppend: "append", opRead: "read", opAbort: "abort", opConfirm: "confirm"}

func (o storeOp) String() string { return storeOpNames[o] }

type storeRequest struct {
	op     storeOp
	nonce  uint64
	writer string
	epoch  uint64
	txn    string
	// next is, for opPrepare, the transaction to begin along with it: the one the sink
	// writes into from the cut on. Beginning it in the same request spares a message per
	// checkpoint, as a Kafka producer's begin costs no round trip of its own.
	next   string
	cp     uint64
	refs   []extstore.Ref // opWrite: the records, in compact form
	rids   []string       // opUpsert, opAppend: the records' ids and values
	values []int64
	commit []string // opRecover: the transactions to commit
	// records: opPrepare, the records written into the transaction; opUpsert, opAppend
	// and opConfirm, the records the incarnation upserted or appended so far (this
	// request's included).
	records int64
	start   int64 // virtual time the request was sent
}

type storeReply struct {
	op      storeOp
	nonce   uint64
	txn     string
	cp      uint64
	epoch   uint64
	visible int64 // opRead
	start   int64
	err     error
}
