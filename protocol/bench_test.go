package protocol_test

import (
	"fmt"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// BenchmarkCoordinatorAck measures one acknowledgement at a coordinator of a
// 10,000-task job, including its share of the completion (metadata, 10,000
// notifications) and of the next trigger. Run:
//
//	go test ./protocol -run '^$' -bench CoordinatorAck -benchmem
func BenchmarkCoordinatorAck(b *testing.B) {
	const tasks = 10000
	cfg := protocol.DefaultConfig()
	topo := protocol.Topology{}
	for i := range tasks {
		topo.Tasks = append(topo.Tasks, protocol.TaskID(fmt.Sprintf("task-%d", i)))
	}
	c, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	now := c.NextDeadline()
	start := func() protocol.CheckpointID {
		c.Tick(now)
		rd := c.Ready()
		id := rd.CounterWrites[0]
		c.CounterPersisted(now, id, nil)
		c.Ready()
		return id
	}
	id := start()
	snap := protocol.TaskSnapshot{Handle: "h", StateSizeBytes: 1}
	next := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := c.Step(now, protocol.AckMessage(topo.Tasks[next], id, snap)); err != nil {
			b.Fatal(err)
		}
		next++
		if next == tasks {
			c.Ready()
			c.MetadataPersisted(now, id, nil)
			c.Ready()
			now = now.Add(cfg.Interval)
			id = start()
			next = 0
		}
	}
}

// BenchmarkAdmit measures the per-buffer path of a task with four inputs:
// no checkpoint in progress, an input blocked by an aligned checkpoint, and
// an input recording channel state for an unaligned one. Run:
//
//	go test ./protocol -run '^$' -bench Admit -benchmem
func BenchmarkAdmit(b *testing.B) {
	newTask := func(mode protocol.Mode) *protocol.Task {
		cfg := protocol.DefaultConfig()
		cfg.Mode = mode
		cfg.MaxBufferedRecords = 1 << 62
		var inputs []protocol.ChannelID
		for i := range 4 {
			inputs = append(inputs, protocol.ChannelID{From: protocol.TaskID(fmt.Sprintf("up-%d", i)), To: "t"})
		}
		t, err := protocol.NewTask(cfg.TaskConfig("t", inputs, []protocol.ChannelID{{From: "t", To: "down"}}))
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	b.Run("no-barrier", func(b *testing.B) {
		t := newTask(protocol.ModeAligned)
		b.ReportAllocs()
		for i := range b.N {
			if t.Admit(i&3).Action != protocol.AdmitProcess {
				b.Fatal("not process")
			}
		}
	})
	b.Run("aligned-blocked", func(b *testing.B) {
		t := newTask(protocol.ModeAligned)
		t.Receive(0, 0, protocol.Barrier(1, protocol.KindCheckpoint, protocol.ModeAligned, 0))
		t.Ready()
		b.ReportAllocs()
		for range b.N {
			if t.Admit(0).Action != protocol.AdmitBlock {
				b.Fatal("not blocked")
			}
		}
	})
	b.Run("unaligned-record", func(b *testing.B) {
		t := newTask(protocol.ModeUnaligned)
		t.Receive(0, 0, protocol.Barrier(1, protocol.KindCheckpoint, protocol.ModeUnaligned, 0))
		t.Ready()
		b.ReportAllocs()
		for range b.N {
			if t.Admit(1).Action != protocol.AdmitRecord {
				b.Fatal("not recording")
			}
		}
	})
}

// TestHotPathsDoNotAllocate pins the allocation claims of the benchmarks in
// an ordinary test (counts, not times, so it is stable on any machine).
func TestHotPathsDoNotAllocate(t *testing.T) {
	cfg := protocol.DefaultConfig()
	inputs := []protocol.ChannelID{{From: "a", To: "t"}, {From: "b", To: "t"}}
	task, _ := protocol.NewTask(cfg.TaskConfig("t", inputs, nil))
	if n := testing.AllocsPerRun(1000, func() { task.Admit(1) }); n != 0 {
		t.Errorf("Admit without a barrier allocates %v times", n)
	}
	task.Receive(0, 0, protocol.Barrier(1, protocol.KindCheckpoint, protocol.ModeAligned, 0))
	if n := testing.AllocsPerRun(1000, func() { task.Admit(0); task.Admit(1) }); n != 0 {
		t.Errorf("Admit during an alignment allocates %v times", n)
	}

	topo := protocol.Topology{}
	for i := range 1000 {
		topo.Tasks = append(topo.Tasks, protocol.TaskID(fmt.Sprintf("task-%d", i)))
	}
	c, _ := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, 0)
	now := c.NextDeadline()
	c.Tick(now)
	c.CounterPersisted(now, c.Ready().CounterWrites[0], nil)
	c.Ready()
	next := 0
	snap := protocol.TaskSnapshot{Handle: "h"}
	if n := testing.AllocsPerRun(500, func() {
		c.Step(now, protocol.AckMessage(topo.Tasks[next], 1, snap))
		next++
	}); n != 0 {
		t.Errorf("an ack that does not complete the checkpoint allocates %v times", n)
	}
}
