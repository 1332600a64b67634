package tokens

// SnapshotIDs returns the checkpoint ids (the trace's cp) that a job of processes
// processes gives the script's snapshots, in script order. The coordinator names a snapshot
// when it is asked for (checkpoint.request), each the next id of its initiator above the
// last (nextTokenID), and before the script ends only the script asks: so the ids follow
// from the script alone. A failover keeps them (a scripted snapshot keeps its id across
// one); a coordinator crash may not, since the next incarnation counts on from the last id
// it reads back and drops the snapshots due while none ran.
func (sc *Script) SnapshotIDs(processes int) []uint64 {
	ids := make([]uint64, len(sc.Snapshots))
	var last uint64
	for i, sn := range sc.Snapshots {
		last = nextTokenID(last, processes, sn.Initiator)
		ids[i] = last
	}
	return ids
}
