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
	{StandardName, 1, "b80b13d114818cc4db47d8d5c5dd2e8a322b29d22ed137bf7cb880dce4a2a23f"},
	{"storage-faults", 2, "aa9636640b1c5623ddad5d0fb32284ff14f8f1d066f7bf1222ef6c5114645dc2"},
	{"chandy-lamport-classic", 1, "e77ffc476d4f9c5e55e196ec39c4e988e5a5f95c7bea11e004e126d0772ba428"},
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
