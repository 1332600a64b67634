package scenarios

import "testing"

// pinnedHashes are trace hashes of a few runs, recorded on one machine. Runs on any other
// machine, OS or architecture, at any GOMAXPROCS and under -race, must reproduce them: that
// is what lets an artifact written on a laptop replay in CI. A change of behaviour (of the
// kernel, the engine, the protocol, the faults or the trace format) changes them; update them
// deliberately, in the commit that changes the behaviour, and say why there.
var pinnedHashes = []struct {
	scenario string
	seed     uint64
	hash     string
}{
	{"pipeline-calm", 1, "f292094ca661d6db553984c0961ce79626eee282bdca88a8d3ecd7b753b1f512"},
	{StandardName, 1, "315019dc34bee1f0f4aa4bd0563f11e49c7b1fcf46658b03a493115ca52b9fc9"},
	{"storage-faults", 2, "faee6b0ef91d69ae5ec1463da5d5f6bf2bfbe295f3b1dccff58811d9650f9abf"},
	// A token job has no sink, and no longer runs a reader polling the empty external store:
	// the sink.read events every 100ms are gone from its trace. Scripted snapshots start at
	// their time (ids reserved ahead in blocks, no counter write per start), which moves it too,
	// and its snapshot.taken events list the messages they recorded (chanmsgs.<from>).
	{"chandy-lamport-classic", 1, "3e631912f2ea30f0e692c3a05e92b62d887ec845f3ec52bfb9a37d5b82de2e60"},
}

func TestPinnedTraceHashes(t *testing.T) {
	for _, pin := range pinnedHashes {
		s, err := Lookup(pin.scenario)
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := Execute(NewSimulation(), s, pin.seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.TraceHash != pin.hash {
			t.Errorf("%s seed %d: trace hash %s, pinned %s; if the change of behaviour is intended, pin the new hash",
				pin.scenario, pin.seed, res.TraceHash, pin.hash)
		}
	}
}
