package chandylamport

import "testing"

// BenchmarkReceive measures the per-message path, Process.Receive: with no snapshot
// recording the channel (the common case, which must not allocate) and with one recording it
// (an append; the snapshot is closed and restarted every 1000 messages so that memory stays
// bounded, and that cost is spread over those messages).
//
//	go test ./protocol/chandylamport -run '^$' -bench Receive -benchmem
func BenchmarkReceive(b *testing.B) {
	cfg := Config{ID: "a", Inputs: []ProcessID{"b", "c"}, Outputs: []ProcessID{"b"}}
	b.Run("idle", func(b *testing.B) {
		p, err := NewProcess[int, int](cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Receive("b", 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("recording", func(b *testing.B) {
		p, err := NewProcess[int, int](cfg)
		if err != nil {
			b.Fatal(err)
		}
		const perSnapshot = 1000
		restart := func() {
			id, err := p.Initiate()
			if err != nil {
				b.Fatal(err)
			}
			if err := p.StateRecorded(id, 0); err != nil {
				b.Fatal(err)
			}
			p.Ready()
		}
		finish := func() {
			id := p.live[0].id
			for _, from := range []ProcessID{"b", "c"} {
				if err := p.HandleMarker(Marker{Snapshot: id, Channel: Channel{From: from, To: "a"}}); err != nil {
					b.Fatal(err)
				}
			}
			p.Ready()
		}
		restart()
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if err := p.Receive("b", n); err != nil {
				b.Fatal(err)
			}
			if n++; n%perSnapshot == 0 {
				finish()
				restart()
			}
		}
	})
}
