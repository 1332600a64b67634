package simenv

// endpoint is one process name of the job: where it is placed, and which incarnation of it
// is current. Endpoints are made once, in New, for every name the job will spawn, and live
// as long as the Env, so that a sender can keep a pointer to the one it sends to instead of
// looking the name up for every message: the current incarnation is then one load away.
type endpoint struct {
	host    *host
	current *proc // the latest incarnation spawned, nil before the first Spawn
	// routes remembers the endpoints this process sent to (see route).
	routes [routeSlots]route
}

// route is a name a process sent to, as the engine spelled it, and its endpoint.
type route struct {
	to       string
	endpoint *endpoint
}

// routeSlots is the size of an endpoint's route cache. A task sends to its downstream tasks
// and the coordinator, rarely more than a dozen names; the coordinator, which sends to every
// task, falls back to the map more often, but sends far fewer messages.
const routeSlots = 16

// routeSlot picks the cache slot of a name from its length and its first and last bytes,
// which tell the names of one operator's tasks ("sum-0" ... "sum-7") apart. Names that share
// a slot evict each other, which costs a map lookup and nothing else.
func routeSlot(to string) int {
	return (int(to[0])*31 + int(to[len(to)-1]) + len(to)) & (routeSlots - 1)
}

// route returns the endpoint of the process called to, or nil for a name the job never
// placed. A message costs a comparison with the cached name, whose bytes are usually the
// very ones the engine passed last time (it keeps its target names), instead of hashing the
// name for a map lookup.
func (from *endpoint) route(env *Env, to string) *endpoint {
	if to == "" {
		return nil
	}
	r := &from.routes[routeSlot(to)]
	if r.endpoint != nil && r.to == to {
		return r.endpoint
	}
	ep := env.endpoints[to]
	if ep != nil {
		*r = route{to: to, endpoint: ep}
	}
	return ep
}
