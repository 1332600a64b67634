package main

import (
	"crypto/sha256"
	"encoding/hex"
	"iter"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// sweepSpec is what a sweep covers: scenarios in order, each over a seed range, then the
// generic part, all filtered to one shard.
type sweepSpec struct {
	scenarios []*scenarios.Scenario
	seeds     *scenarios.SeedRange // overrides each scenario's default seeds when set
	shard     shardFlag
	// generic is the generic part's seeds, run after the scenarios: each seed runs the
	// scenario generate.Seed draws from it. Nil: no generic part.
	generic *scenarios.SeedRange
	// builtin: the scenarios are the built-in catalogue's, not a file's.
	builtin bool
}

// job is one run of a sweep; index is its position in the sweep's deterministic order.
type job struct {
	index    int
	scenario *scenarios.Scenario
	seed     uint64
	// generated: the job is of the generic part, its scenario drawn from its seed.
	generated bool
	// own: the scenario is ckptsim's own (built in or generated), so this build refusing it
	// is a finding (scenarios.Refused), not bad input.
	own bool
}

func (s *sweepSpec) rangeOf(sc *scenarios.Scenario) scenarios.SeedRange {
	if s.seeds != nil {
		return *s.seeds
	}
	return *sc.Seeds
}

// jobs yields the sweep's runs lazily, so a range of a million seeds costs no memory up
// front: scenarios in order, then the generic part, seeds ascending, only those the shard
// holds. A generic job's scenario is drawn when it is yielded, not before.
func (s *sweepSpec) jobs() iter.Seq[job] {
	return func(yield func(job) bool) {
		index := 0
		// each yields the jobs of one seed range; false stops the whole sweep.
		each := func(r scenarios.SeedRange, next func(seed uint64) job) bool {
			for seed := r.First; ; seed++ {
				if s.shard.contains(seed) {
					j := next(seed)
					j.index = index
					if !yield(j) {
						return false
					}
					index++
				}
				if seed == r.Last {
					return true
				}
			}
		}
		for _, sc := range s.scenarios {
			if !each(s.rangeOf(sc), func(seed uint64) job { return job{scenario: sc, seed: seed, own: s.builtin} }) {
				return
			}
		}
		if s.generic != nil {
			each(*s.generic, func(seed uint64) job {
				return job{scenario: generate.Seed(seed), seed: seed, generated: true, own: true}
			})
		}
	}
}

// total returns the number of jobs, for the progress line.
func (s *sweepSpec) total() uint64 {
	var n uint64
	for _, sc := range s.scenarios {
		n += s.shard.countIn(s.rangeOf(sc))
	}
	if s.generic != nil {
		n += s.shard.countIn(*s.generic)
	}
	return n
}

// plannedScenario is one scenario of a sweep's plan, as `sweep -json` records it in its
// summary line: what merge compares to tell outputs of one sweep from outputs of different
// ones, and what orders the merged runs as one sweep would.
type plannedScenario struct {
	Scenario string              `json:"scenario"`
	Seeds    scenarios.SeedRange `json:"seeds"`
	// Digest is a hash of the scenario file (scenarios.Marshal, every default filled in), so
	// that two machines that swept files of one name but different content do not merge;
	// none for -generated, whose scenarios the build draws.
	Digest string `json:"digest,omitempty"`
}

// plan returns the sweep's scenarios in order, each with its seed range, and the generic
// part last: the whole sweep, whatever the shard.
func (s *sweepSpec) plan() []plannedScenario {
	plan := make([]plannedScenario, len(s.scenarios))
	for i, sc := range s.scenarios {
		sum := sha256.Sum256(scenarios.Marshal(sc))
		plan[i] = plannedScenario{Scenario: sc.Name, Seeds: s.rangeOf(sc), Digest: hex.EncodeToString(sum[:8])}
	}
	if s.generic != nil {
		plan = append(plan, plannedScenario{Scenario: generate.Name, Seeds: *s.generic})
	}
	return plan
}
