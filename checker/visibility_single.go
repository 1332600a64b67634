package checker

import (
	"math/big"
	"slices"
)

// A segment of the sink's history with a single read needs no search. Linearizing the read
// at some point t of its span splits the segment's commits three ways: those that returned
// before t must come before the read, those invoked after t cannot, and each of the rest may
// go either way; any choice is consistent with real time, since a commit placed before t can
// sit at its invocation and one placed after at t. So the history is linearizable exactly
// when, for some t, the records of the must-commits plus those of some subset of the
// may-commits add up to what the read saw, over the segment's base.
//
// The sets change only where a commit is invoked or returns, so a handful of points t
// suffice, and "some subset adds up to" is a subset-sum over record counts, which stay small
// (a few thousand at most in a segment), decided with a bitset of reachable sums.
//
// porcupine explores the same question by trying commits in the order they were invoked, and
// a read that saw none of several dozen concurrent commits costs it every subset of them
// before it tries the read first. One reader polling the store gives segments with a single
// read almost always, so this keeps sink visibility decided, and cheap, where the search
// would run out of steps.

// singleReadLinearizable reports whether read, the only read of a segment whose committed
// count is base before it, has a linearization with the segment's commits.
func singleReadLinearizable(base int64, commits []visibilityOp, read visibilityOp) bool {
	want := read.records - base
	if want < 0 {
		return false
	}
	// Candidate points: just after the read's invocation and just after every commit
	// invocation or return inside its span. Positions are integers, so p+0.5 is written as
	// "after p": a commit with ret < p+0.5, that is ret <= p, must precede; one with
	// call <= p may.
	points := []int64{read.call}
	for _, c := range commits {
		for _, p := range []int64{c.call, c.ret} {
			if p > read.call && p < read.ret {
				points = append(points, p)
			}
		}
	}
	slices.Sort(points)
	points = slices.Compact(points)
	for _, p := range points {
		var must int64
		var optional []int64
		for _, c := range commits {
			switch {
			case c.ret <= p:
				must += c.records
			case c.call <= p && c.records > 0:
				optional = append(optional, c.records)
			}
		}
		if need := want - must; need >= 0 && subsetSums(optional, need) {
			return true
		}
	}
	return false
}

// subsetSums reports whether some subset of values (each positive) adds up to target.
func subsetSums(values []int64, target int64) bool {
	if target == 0 {
		return true
	}
	var total int64
	for _, v := range values {
		total += v
	}
	if target > total {
		return false
	}
	// Bit s of reach is set when some subset of the values seen so far adds up to s.
	reach := big.NewInt(1)
	var shifted big.Int
	for _, v := range values {
		shifted.Lsh(reach, uint(v))
		reach.Or(reach, &shifted)
		if reach.Bit(int(target)) == 1 {
			return true
		}
	}
	return false
}
