package simtarget_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
)

// BenchmarkSendDeliver measures what an active class-specific fault adds to each message:
// the classification and one draw per matching rule, on the kernel's send and delivery.
//
//	go test -run '^$' -bench SendDeliver -benchmem ./faults/simtarget
func BenchmarkSendDeliver(b *testing.B) {
	for _, c := range []struct {
		name  string
		start func(w *simtarget.World)
	}{
		{"no fault", func(*simtarget.World) {}},
		{"net.drop of barriers", func(w *simtarget.World) {
			w.DropMessages(1, faults.Link{}, faults.MessageBarrier, 0.5)
		}},
		{"data.drop and data.duplicate", func(w *simtarget.World) {
			w.DropRecords(1, faults.Link{}, 0.01)
			w.DuplicateRecords(2, faults.Link{}, 0.01)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			k := sim.New(sim.Config{Seed: 1})
			from := k.AddHost("a", func(*sim.Host) {})
			to := k.AddHost("b", func(h *sim.Host) { h.SetReceiver(func(*sim.Link, any) {}) })
			l := k.Connect("a->b", from, to, sim.LinkConfig{Latency: time.Microsecond})
			from.Start()
			to.Start()
			w, err := simtarget.NewWorld(k, simtarget.Config{
				Routes:   []simtarget.Route{{Link: faults.Link{From: "src", To: "sum"}, Sim: l}},
				Classify: classify,
			})
			if err != nil {
				b.Fatal(err)
			}
			c.start(w)
			record := &msg{class: simtarget.ClassRecord}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := l.Send(record); err != nil {
					b.Fatal(err)
				}
				if i%256 == 255 {
					k.Run()
				}
			}
			k.Run()
		})
	}
}
