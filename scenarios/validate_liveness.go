package scenarios

// validateLivenessBound refuses a liveness bound that a correct job may miss. After heal the
// next periodic checkpoint can be a whole interval (or min pause) away, so a bound shorter
// than that fails a correct run, unless the job finishes first, which liveness accepts: a
// job whose input ends by heal is not refused.
func (s *Scenario) validateLivenessBound(p *problems, path string) {
	c, l := s.Checkpoint, s.Limits
	wait := max(c.Interval, c.MinPause)
	if !c.IsPeriodic() || c.Interval <= 0 || l.LivenessBound <= 0 || l.LivenessBound >= wait {
		return
	}
	input := Duration(s.Workload.InputEndNanos())
	if len(s.Script) > 0 || input <= l.FaultPhase+l.HealPhase {
		return
	}
	p.add(path+".liveness_bound", "%s is shorter than the wait for a checkpoint after heal (checkpoint.interval %s, checkpoint.min_pause %s), and the input (until %s) runs past heal: a correct job may miss it",
		l.LivenessBound, c.Interval, c.MinPause, input)
}
