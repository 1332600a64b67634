package sim_test

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/sim"
)

// A sender ticks every 10ms; a receiver persists what it gets. The receiver crashes at 25ms
// and restarts at 40ms, and reads back what survived.
func Example() {
	k := sim.New(sim.Config{Seed: 1, MaxTime: sim.TimeAt(time.Second)})
	disk := k.NewStore("disk", sim.StoreConfig{Latency: time.Millisecond})

	receiver := k.AddHost("receiver", func(h *sim.Host) {
		disk.Get(h, "last", func(value []byte, err error) {
			fmt.Printf("%v receiver incarnation %d restored %q (err %v)\n", k.Now(), h.Incarnation(), value, err)
		})
		h.SetReceiver(func(l *sim.Link, msg any) {
			fmt.Printf("%v receiver got %v\n", k.Now(), msg)
			disk.Put(h, "last", []byte(msg.(string)), func(error) {})
		})
	})
	sender := k.AddHost("sender", func(h *sim.Host) {})
	link := k.Connect("sender->receiver", sender, receiver, sim.LinkConfig{Latency: 2 * time.Millisecond})
	sender.Start()
	receiver.Start()

	count := 0
	var tick *sim.Timer
	tick = sender.NewTimer(func() {
		count++
		if err := link.Send(fmt.Sprintf("m%d", count)); err != nil {
			fmt.Println(err)
		}
		tick.Reset(10 * time.Millisecond)
	})
	tick.Reset(10 * time.Millisecond)
	k.At(sim.TimeAt(25*time.Millisecond), func() { receiver.Crash() })
	k.At(sim.TimeAt(40*time.Millisecond), receiver.Start)

	stop := k.RunUntil(sim.TimeAt(55 * time.Millisecond))
	fmt.Println(stop, k.Now())
	// Output:
	// 1000000ns receiver incarnation 1 restored "" (err sim: key not found)
	// 12000000ns receiver got m1
	// 22000000ns receiver got m2
	// 41000000ns receiver incarnation 2 restored "m2" (err <nil>)
	// 42000000ns receiver got m4
	// 52000000ns receiver got m5
	// reached 55000000ns
}
