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
	{StandardName, 1, "a7ce8fc37c81856df53a44853e5002f0e3f28dfefaf462648f2f654ad581e4c8"},
	{"storage-faults", 2, "cd1227215e6c604ed05d2b03c82935cf6f73f1df543756aa525a51a73b3b6ae8"},
	{"chandy-lamport-classic", 1, "9d54085a2bf659670486beec5503446081024e991384eef19f49def966660a49"},
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
