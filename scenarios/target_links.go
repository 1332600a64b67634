package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
)

// HostLink is one simulator link, between the hosts of two endpoints, and every link of the
// fault model it carries: the data channels between tasks on those hosts, or the control
// links between the coordinator and the tasks on the far host.
type HostLink struct {
	From, To string        // host names
	Carries  []faults.Link // in the order of System().Channels, then ControlLinks()
}

// FaultHostLinks returns the host links a network or data fault acts on, in the order the
// simulation finds them, or nil for a fault that names no link: one of another kind, or one
// with neither end given, which acts on every link.
//
// The simulator connects hosts, not tasks, and task i of every operator runs on host tm-i
// (see Graph), so a fault on the channel from task a to task b acts on the link from a's host
// to b's, and with it on every channel between those hosts: a reorder of source-0 -> sum-0
// also reorders sum-0 -> sink-0, which shares tm-0 -> tm-0. This is what the printed plan
// says under each such fault.
func (s *Scenario) FaultHostLinks(f faults.Fault) []HostLink {
	if !actsOnLinks(f.Kind) || (f.From == "" && f.To == "") {
		return nil
	}
	sys := s.System()
	g := s.Graph()
	hosts := map[string]string{faults.Coordinator: HostCoordinator}
	for _, task := range sys.Tasks {
		hosts[task] = g.HostOf(task)
	}
	hostOf := func(endpoint string) string { return hosts[endpoint] }
	routes := append(append([]faults.Link(nil), sys.Channels...), sys.ControlLinks()...)
	dataOnly := f.Kind == faults.DataDrop || f.Kind == faults.DataDuplicate || f.Kind == faults.DataReorder
	patterns := []faults.Link{{From: f.From, To: f.To}}
	if f.Kind == faults.NetPartition && !f.OneWay {
		patterns = append(patterns, faults.Link{From: f.To, To: f.From})
	}
	var out []HostLink
	for _, p := range patterns {
		for i, r := range routes {
			if dataOnly && i >= len(sys.Channels) {
				break // control links carry no records
			}
			if (p.From != "" && p.From != r.From) || (p.To != "" && p.To != r.To) {
				continue
			}
			from, to := hostOf(r.From), hostOf(r.To)
			if containsHostLink(out, from, to) {
				continue
			}
			hl := HostLink{From: from, To: to}
			for _, other := range routes {
				if hostOf(other.From) == from && hostOf(other.To) == to {
					hl.Carries = append(hl.Carries, other)
				}
			}
			out = append(out, hl)
		}
	}
	return out
}

// actsOnLinks reports whether faults of kind k act on links of the fault model.
func actsOnLinks(k faults.Kind) bool {
	switch k {
	case faults.NetDrop, faults.NetBreak, faults.NetDelay, faults.NetPartition, faults.NetClog,
		faults.DataDrop, faults.DataDuplicate, faults.DataReorder:
		return true
	}
	return false
}

func containsHostLink(links []HostLink, from, to string) bool {
	for _, l := range links {
		if l.From == from && l.To == to {
			return true
		}
	}
	return false
}
