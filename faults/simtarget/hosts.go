package simtarget

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// hostState is the World's view of one host: how many crash and pause effects hold it, the
// skews on it, and the kernel timers that restart it late and renew its pause.
type hostState struct {
	w       *World
	host    *sim.Host
	crashes int // active crash.host effects
	pauses  int // active pause.host effects
	skews   []idDuration

	restart *sim.Timer // a restart put off by restart.delay
	renew   *sim.Timer // the next renewal of a pause
}

func newHostState(w *World, h *sim.Host) *hostState {
	s := &hostState{w: w, host: h}
	s.restart = w.k.NewTimer(s.start)
	s.renew = w.k.NewTimer(s.renewPause)
	return s
}

// hostFor returns the state of the named host. An unknown name is a bug in the glue
// (CheckSystem finds it up front) and panics.
func (w *World) hostFor(name string) *hostState {
	s := w.hostByName[name]
	if s == nil {
		panic(fmt.Sprintf("simtarget: a host fault names host %q, which the world does not know", name))
	}
	return s
}

// CrashHost crashes host now (sim.Host.Crash: its timers, queued events and inbound messages
// in flight are gone) and keeps it down until End(id) and every other crash on it has ended.
// Then it is started again, a new incarnation, after RestartDelay if one is in force (as a
// kernel timer), or at once otherwise. A crash that comes while a delayed restart is pending
// cancels it. Calling it from inside the host's own event is fine: the rest of that event has
// no effect on the world. Nothing else may start the host while a crash holds it down (the
// World checks Up before it starts a host, but cannot keep a host down that someone started).
func (w *World) CrashHost(id faults.EffectID, host string) {
	s := w.hostFor(host)
	s.crashes++
	s.restart.Stop()
	s.host.Crash()
	w.begin(id, s.endCrash)
}

func (s *hostState) endCrash() {
	s.crashes--
	if s.crashes > 0 {
		return
	}
	if d := s.w.RestartDelay(); d > 0 {
		s.restart.Reset(d)
		return
	}
	s.start()
}

// start boots the host if nothing holds it down and it is not up already (someone else may
// have started it meanwhile). A pause in force applies to the new incarnation at once.
func (s *hostState) start() {
	if s.crashes > 0 || s.host.Up() {
		return
	}
	s.host.Start()
	if s.pauses > 0 {
		s.renewPause()
	}
}

// PauseHost stalls host until End(id) and every other pause on it has ended: its timers,
// deliveries and storage completions wait, in order, and happen when it resumes.
//
// The kernel's pause has a length and cannot be cut short, while a pause effect lasts until
// End, whose time the World is not told. So the World pauses the host one quantum
// (Config.PauseQuantum) plus 1ns at a time, renewing it from a kernel timer every quantum
// while a pause is in force; the extra nanosecond makes each renewal overlap the next, so no
// event of the host slips through at a boundary. After the last End the host resumes when
// the current quantum runs out: at most one quantum plus 1ns late, and exactly 1ns late when
// the window is a multiple of the quantum. A crash ends the kernel's pause; a restart while a
// pause is in force pauses the new incarnation again.
func (w *World) PauseHost(id faults.EffectID, host string) {
	s := w.hostFor(host)
	s.pauses++
	if s.pauses == 1 {
		s.renewPause()
	}
	w.begin(id, s.endPause)
}

func (s *hostState) renewPause() {
	q := s.w.config.PauseQuantum
	s.host.Pause(q + 1) // no effect on a host that is down
	s.renew.Reset(q)
}

func (s *hostState) endPause() {
	s.pauses--
	if s.pauses == 0 {
		s.renew.Stop()
	}
}

// DelayRestarts makes every restart the World performs while it is in force (the end of a
// crash.host) wait delayNanos longer; overlapping delays add up. The engine half delays its
// own restarts (task failover, a new coordinator) by RestartDelay.
func (w *World) DelayRestarts(id faults.EffectID, delayNanos int64) {
	w.restartDelays = append(w.restartDelays, idDuration{id: id, nanos: delayNanos})
	w.begin(id, func() {
		w.restartDelays = withoutID(w.restartDelays, id, func(d idDuration) faults.EffectID { return d.id })
	})
}

// RestartDelay returns the sum of the restart delays in force: how much longer than usual a
// restart that falls due now must wait. The engine half of a Target reads it when it
// schedules a restart.
func (w *World) RestartDelay() time.Duration {
	var total int64
	for _, d := range w.restartDelays {
		total += d.nanos
	}
	return time.Duration(total)
}

// SkewTimers makes host's timers armed from now on run off by skewPPM until End(id): a timer
// for d fires after d + d*skewPPM/1e6. Overlapping skews add up, clamped to
// ±faults.MaxSkewPPM so a timer always fires after a positive delay. Timers armed before the
// change keep their deadlines, as on a real machine whose clock drifts.
func (w *World) SkewTimers(id faults.EffectID, host string, skewPPM int64) {
	s := w.hostFor(host)
	s.skews = append(s.skews, idDuration{id: id, nanos: skewPPM})
	s.applySkew()
	w.begin(id, func() {
		s.skews = withoutID(s.skews, id, func(d idDuration) faults.EffectID { return d.id })
		s.applySkew()
	})
}

func (s *hostState) applySkew() {
	var ppm int64
	for _, d := range s.skews {
		ppm += d.nanos
	}
	s.host.SetTimerSkew(min(max(ppm, -faults.MaxSkewPPM), faults.MaxSkewPPM), 0)
}

// heal drops every effect on the host and starts it if it is down. A pause in force runs out
// within a quantum.
func (s *hostState) heal() {
	s.crashes, s.pauses, s.skews = 0, 0, nil
	s.applySkew()
	s.restart.Stop()
	s.renew.Stop()
	s.start()
}
