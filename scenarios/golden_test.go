package scenarios

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pinnedHashes are trace hashes of a few runs, recorded on one machine. Runs on any other
// machine, OS or architecture, at any GOMAXPROCS and under -race, must reproduce them: that
// is what lets an artifact written on a laptop replay in CI. A change of behaviour (of the
// kernel, the engine, the protocol, the faults or the trace format) changes them; update them
// deliberately, in the commit that changes the behaviour, and say why there. (Trace hash
// version 2 changed all four without a change of behaviour: the runs' version 1 hashes were
// still the ones pinned before. Artifact version 5 changed all four again: snapshot state is
// digested with XXH64 instead of SHA-256, so every snapshot.taken and task.restore names
// its state by another digest. The three barrier jobs changed once more when a periodic
// checkpoint.trigger began to say so, and when it was decided: periodic=true and start; and
// again with the state.release events and final=true on the snapshot.ack of a final
// snapshot, without a change of behaviour: the token job traces neither; and again when
// their tasks began to trace the triggers and cancel markers they take in and send:
// trigger.recv, marker.send and marker.recv.)
//
// Each pin's golden file, testdata/pinned/SCENARIO-seedN.txt, holds the hash beside a digest
// of the run (checkpoints completed and aborted, events by kind), so that a hash that moved
// shows what moved with it. After a deliberate change:
//
//	go test ./scenarios -run TestPinnedTraceHashes -rewrite
var pinnedRuns = []struct {
	scenario string
	seed     uint64
}{
	{"pipeline-calm", 1},
	// A failed counter write counts as a checkpoint failure (Flink's IO_EXCEPTION): both
	// runs meet a metadata store that fails the counter's writes, and now fail over for
	// exceeded tolerable failures once the writes succeed again.
	{StandardName, 1},
	{"storage-faults", 2},
	// A token job has no sink, and no longer runs a reader polling the empty external store:
	// the sink.read events every 100ms are gone from its trace. Scripted snapshots start at
	// their time (ids reserved ahead in blocks, no counter write per start), which moves it too,
	// and its snapshot.taken events list the messages they recorded (chanmsgs.<from>).
	{"chandy-lamport-classic", 1},
	// Incremental snapshots, shared pieces and their releases, and three resubmissions.
	{"resubmit-restore-modes", 1},
}

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files of the pinned runs")

func TestPinnedTraceHashes(t *testing.T) {
	for _, pin := range pinnedRuns {
		s, err := Lookup(pin.scenario)
		if err != nil {
			t.Fatal(err)
		}
		var trace bytes.Buffer
		_, res, err := Execute(NewSimulation(), s, pin.seed, RunOptions{Trace: &trace})
		if err != nil {
			t.Fatal(err)
		}
		got := runDigest(t, res, trace.Bytes())
		path := filepath.Join("testdata", "pinned", fmt.Sprintf("%s-seed%d.txt", pin.scenario, pin.seed))
		if *rewrite {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
			t.Errorf("%s seed %d moved (-pinned +now):\n%s\nif the change of behaviour is intended: go test ./scenarios -run TestPinnedTraceHashes -rewrite",
				pin.scenario, pin.seed, diff)
		}
	}
}

// runDigest is a pinned run's golden file: its trace hash, its checkpoints completed and
// aborted, and how many events of each kind its trace (JSON Lines) holds.
func runDigest(t *testing.T, res *Result, jsonl []byte) string {
	t.Helper()
	kinds := map[string]int{}
	for line := range bytes.Lines(jsonl) {
		var e struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("a trace line that is not JSON: %v", err)
		}
		kinds[e.Kind]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "trace hash %s\n", res.TraceHash)
	fmt.Fprintf(&b, "checkpoints %d completed, %d aborted\n", res.CheckpointsCompleted, res.CheckpointsAborted)
	fmt.Fprintf(&b, "events %d\n", res.Events)
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Fprintf(&b, "  %-20s %d\n", k, kinds[k])
	}
	return b.String()
}
