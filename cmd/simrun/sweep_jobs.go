package main

import (
	"crypto/sha256"
	"encoding/hex"
	"iter"

	"github.com/ckptsim/ckptsim/scenarios"
)

// sweepSpec is what a sweep covers: scenarios in order, each over a seed range, filtered to
// one shard.
type sweepSpec struct {
	scenarios []*scenarios.Scenario
	seeds     *scenarios.SeedRange // overrides each scenario's default seeds when set
	shard     shardFlag
	// generated draws each seed's scenario with scenarios.Generate instead: scenarios is
	// empty and seeds is set.
	generated bool
}

// job is one run of a sweep; index is its position in the sweep's deterministic order.
type job struct {
	index    int
	scenario *scenarios.Scenario
	seed     uint64
}

func (s *sweepSpec) rangeOf(sc *scenarios.Scenario) scenarios.SeedRange {
	if s.seeds != nil {
		return *s.seeds
	}
	return *sc.Seeds
}

// jobs yields the sweep's runs lazily, so a range of a million seeds costs no memory up
// front: scenarios in order, seeds ascending, only those the shard holds.
func (s *sweepSpec) jobs() iter.Seq[job] {
	return func(yield func(job) bool) {
		index := 0
		if s.generated {
			for seed := s.seeds.First; ; seed++ {
				if s.shard.contains(seed) {
					if !yield(job{index: index, scenario: scenarios.Generate(seed), seed: seed}) {
						return
					}
					index++
				}
				if seed == s.seeds.Last {
					return
				}
			}
		}
		for _, sc := range s.scenarios {
			r := s.rangeOf(sc)
			for seed := r.First; ; seed++ {
				if s.shard.contains(seed) {
					if !yield(job{index: index, scenario: sc, seed: seed}) {
						return
					}
					index++
				}
				if seed == r.Last {
					break
				}
			}
		}
	}
}

// total returns the number of jobs, for the progress line.
func (s *sweepSpec) total() uint64 {
	if s.generated {
		return s.shard.countIn(*s.seeds)
	}
	var n uint64
	for _, sc := range s.scenarios {
		n += s.shard.countIn(s.rangeOf(sc))
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

// plan returns the sweep's scenarios in order, each with its seed range: the whole sweep,
// whatever the shard.
func (s *sweepSpec) plan() []plannedScenario {
	if s.generated {
		return []plannedScenario{{Scenario: scenarios.GeneratedName, Seeds: *s.seeds}}
	}
	plan := make([]plannedScenario, len(s.scenarios))
	for i, sc := range s.scenarios {
		sum := sha256.Sum256(scenarios.Marshal(sc))
		plan[i] = plannedScenario{Scenario: sc.Name, Seeds: s.rangeOf(sc), Digest: hex.EncodeToString(sum[:8])}
	}
	return plan
}
