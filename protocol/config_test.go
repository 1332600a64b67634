package protocol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// TestConfigValidateNamesTheField breaks one field at a time and checks the
// error names it.
func TestConfigValidateNamesTheField(t *testing.T) {
	if err := protocol.DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config invalid: %v", err)
	}
	cases := []struct {
		field  string
		break_ func(*protocol.Config)
	}{
		{"Mode", func(c *protocol.Config) { c.Mode = 0 }},
		{"Interval", func(c *protocol.Config) { c.Interval = -1 }},
		{"Timeout", func(c *protocol.Config) { c.Timeout = 0 }},
		{"MaxConcurrent", func(c *protocol.Config) { c.MaxConcurrent = 0 }},
		{"MaxConcurrent", func(c *protocol.Config) { c.MaxConcurrent = c.MaxPendingCheckpoints + 1 }},
		{"MaxConcurrent", func(c *protocol.Config) { c.Mode = protocol.ModeUnaligned; c.MaxConcurrent = 2 }},
		{"MinPause", func(c *protocol.Config) { c.MinPause = -1 }},
		{"TolerableFailures", func(c *protocol.Config) { c.TolerableFailures = -1 }},
		{"RetainedCheckpoints", func(c *protocol.Config) { c.RetainedCheckpoints = 0 }},
		{"RetainedCheckpoints", func(c *protocol.Config) { c.RetainedCheckpoints = protocol.MaxRetainedCheckpointsLimit + 1 }},
		{"AlignmentTimeout", func(c *protocol.Config) { c.AlignmentTimeout = -1 }},
		{"AlignmentTimeout", func(c *protocol.Config) { c.Mode = protocol.ModeAlignedWithTimeout }},
		{"AlignmentTimeout", func(c *protocol.Config) { c.AlignmentTimeout = 5 }},
		{"MaxPendingCheckpoints", func(c *protocol.Config) { c.MaxPendingCheckpoints = 0; c.MaxConcurrent = 1 }},
		{"MaxPendingCheckpoints", func(c *protocol.Config) { c.MaxPendingCheckpoints = protocol.MaxPendingCheckpointsLimit + 1 }},
		{"MaxBufferedRecords", func(c *protocol.Config) { c.MaxBufferedRecords = 0 }},
	}
	for _, tc := range cases {
		cfg := protocol.DefaultConfig()
		tc.break_(&cfg)
		err := cfg.Validate()
		var ce *protocol.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("breaking %s: got %v", tc.field, err)
		}
	}
}

func TestTaskConfigAndTopologyValidate(t *testing.T) {
	cfg := protocol.DefaultConfig()
	good := cfg.TaskConfig("m", []protocol.ChannelID{{From: "s", To: "m"}}, []protocol.ChannelID{{From: "m", To: "k"}})
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []protocol.TaskConfig{
		cfg.TaskConfig("", nil, nil),
		cfg.TaskConfig("m", []protocol.ChannelID{{From: "s", To: "x"}}, nil),
		cfg.TaskConfig("m", nil, []protocol.ChannelID{{From: "x", To: "k"}}),
		cfg.TaskConfig("m", []protocol.ChannelID{{From: "s", To: "m"}, {From: "s", To: "m"}}, nil),
	}
	for _, b := range bad {
		if _, err := protocol.NewTask(b); err == nil {
			t.Errorf("NewTask accepted %+v", b)
		}
	}
	topos := []protocol.Topology{
		{},
		{Tasks: []protocol.TaskID{"a", "a"}},
		{Tasks: []protocol.TaskID{"a", protocol.CoordinatorTask}},
		{Tasks: []protocol.TaskID{"a"}, Channels: []protocol.ChannelID{{From: "a", To: "b"}}},
	}
	for _, topo := range topos {
		if _, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, 0); err == nil {
			t.Errorf("NewCoordinator accepted topology %+v", topo)
		}
	}
	// A store from another job graph is refused.
	topo := protocol.Topology{Tasks: []protocol.TaskID{"a", "b"}}
	other := protocol.CompletedCheckpoint{ID: 1, Kind: protocol.KindCheckpoint, Tasks: []protocol.TaskState{{Task: "b"}, {Task: "a"}}}
	if _, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{Completed: []protocol.CompletedCheckpoint{other}}, 0); err == nil {
		t.Error("NewCoordinator accepted a stored checkpoint of another topology")
	}
}

// TestStringsAreStable pins the text forms traces and golden files rely on.
func TestStringsAreStable(t *testing.T) {
	cases := []struct{ got, want string }{
		{protocol.ChannelID{From: "a", To: "b"}.String(), "a->b"},
		{protocol.ChannelID{From: "a", To: "b", Index: 2}.String(), "a->b#2"},
		{protocol.Barrier(3, protocol.KindSavepoint, protocol.ModeAligned, 0).String(), "barrier cp=3 savepoint aligned"},
		{protocol.CancelMarker(3).String(), "cancel-marker cp=3"},
		{protocol.EndOfPartition().String(), "end-of-partition"},
		{protocol.EndOfData().String(), "end-of-data"},
		{protocol.TriggerMessage("s", 1, protocol.KindCheckpoint, protocol.ModeUnaligned, 7).String(), "trigger coordinator->s cp=1 checkpoint unaligned t=7"},
		{protocol.DeclineMessage("s", 1, protocol.ReasonExpired).String(), "decline s->coordinator cp=1 reason=expired"},
		{protocol.NotifyAbortedMessage("s", 1, protocol.ReasonSubsumed).String(), "notify-aborted coordinator->s cp=1 reason=subsumed"},
		{protocol.TaskFinishedMessage("s").String(), "task-finished s->coordinator"},
		{protocol.ModeAlignedWithTimeout.String(), "aligned-with-timeout"},
		{protocol.ModeAtLeastOnce.String(), "at-least-once"},
		{protocol.Admission{Action: protocol.AdmitRecord, Checkpoint: 4}.String(), "record cp=4"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for r := protocol.Reason(1); r <= protocol.ReasonCoordinatorRecovery; r++ {
		if strings.HasPrefix(r.String(), "reason(") {
			t.Errorf("reason %d has no name", r)
		}
	}
	for m := protocol.ModeAligned; m <= protocol.ModeAtLeastOnce; m++ {
		if got, err := protocol.ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
}
