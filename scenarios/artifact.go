package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
)

// ArtifactVersion is the version of the artifact format this build writes. Version 2 added
// the digest; version 3 the verdict unknown; version 4 recorded the trace hash of version 2
// (16 hex digits, package trace) instead of version 1. Version 5 is the first whose engine
// digests snapshot state with XXH64 instead of SHA-256 (engine.Digest): every trace of a job
// with a snapshot changed, so no artifact of an earlier version can replay to the hash it
// recorded, and this build refuses them (refusedBefore) rather than call every replay a
// change of code. The build that wrote one replays it.
const ArtifactVersion = 5

// refusedBefore is the first artifact version this build reads: earlier ones were written by
// an engine whose traces it does not reproduce.
const refusedBefore = 5

// Artifact is a self-contained record of one run, written for every failure so that it can
// be replayed and shrunk without the catalogue or the command line that produced it: the
// scenario inline, the seed, the fault schedule the run injected, the build, and what the run
// showed (its trace hash, verdict and violations). The file ends with a digest of all of it
// (see MarshalArtifact), so that an artifact changed after it was written is bad input rather
// than a replay that differs for no reason.
type Artifact struct {
	Version  int       `json:"artifact_version"`
	Scenario *Scenario `json:"scenario"`
	Seed     uint64    `json:"seed"`
	// Schedule is the fault schedule the run injected: the scenario's faults, or for a swarm
	// scenario what the swarm drew; replay draws it again from the seed, shrink starts from
	// it.
	Schedule faults.Schedule `json:"schedule"`
	// Build names the build that wrote the artifact. A replay on the same build must give
	// the same trace hash; a different hash there is nondeterminism.
	Build       string `json:"build"`
	TraceHash   string `json:"trace_hash"`
	Events      uint64 `json:"events"`
	Verdict     string `json:"verdict"`
	LimitReason string `json:"limit_reason,omitempty"`
	// Undecided is Result.Undecided, for a run whose verdict is unknown (version 3 on).
	Undecided  []string            `json:"undecided,omitempty"`
	Violations []checker.Violation `json:"violations"`
	Panic      string              `json:"panic,omitempty"`
	// ShrunkFrom names the artifact this one was shrunk from, if any.
	ShrunkFrom string `json:"shrunk_from,omitempty"`
}

// NewArtifact records a run of plan that gave result, on build.
func NewArtifact(plan *Plan, result *Result, build string) *Artifact {
	return &Artifact{
		Version:     ArtifactVersion,
		Scenario:    plan.Scenario.Clone(),
		Seed:        plan.Seed,
		Schedule:    faults.Schedule{Entries: slices.Clone(plan.Faults.Entries)},
		Build:       build,
		TraceHash:   result.TraceHash,
		Events:      result.Events,
		Verdict:     result.Verdict,
		LimitReason: result.LimitReason,
		Undecided:   slices.Clone(result.Undecided),
		Violations:  slices.Clone(result.Violations),
		Panic:       result.Panic,
	}
}

var traceHashPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// ParseArtifact reads an artifact file strictly and checks that it is whole: a corrupted,
// truncated or edited artifact is an error naming the field at fault, never a replay of
// something else. A change that leaves every field valid is caught by the digest.
func ParseArtifact(data []byte) (*Artifact, error) {
	var f artifactFile
	if err := decodeStrict(data, "artifact", &f); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	a := &f.Artifact
	// Digested as read, before check fills in the scenario's defaults.
	digest := a.digest()
	if err := a.check(); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	if err := checkDigest(f.Digest, digest); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return a, nil
}

func (a *Artifact) check() error {
	if a.Version >= 2 && a.Version < refusedBefore {
		return fmt.Errorf("artifact.artifact_version: version %d is refused: this build writes version %d, whose engine digests snapshot state with XXH64 instead of SHA-256, so no earlier artifact replays to its trace hash; replay it with the build that wrote it (%s)", a.Version, ArtifactVersion, a.Build)
	}
	if a.Version < refusedBefore || a.Version > ArtifactVersion {
		return fmt.Errorf("artifact.artifact_version: this build reads version %d, not %d", ArtifactVersion, a.Version)
	}
	if a.Scenario == nil {
		return errors.New("artifact.scenario: is required")
	}
	a.Scenario.applyDefaults()
	var p problems
	a.Scenario.validate(&p, "artifact.scenario")
	if len(p.list) == 0 {
		err := a.Schedule.Validate()
		if err == nil {
			err = a.Scenario.System().CheckSchedule(a.Schedule)
		}
		if err != nil {
			p.list = append(p.list, faultsPath(err, "artifact.schedule.entries"))
		}
	}
	if len(p.list) == 0 && a.Scenario.Swarm == nil && !slices.Equal(a.Schedule.Entries, a.Scenario.Faults) {
		// A run injects its scenario's faults, so any other schedule was not what it ran.
		p.add("artifact.schedule", "differs from artifact.scenario.faults, which a scenario without a swarm injects as they are")
	}
	if a.Build == "" {
		p.add("artifact.build", "is required")
	}
	if !traceHashPattern.MatchString(a.TraceHash) {
		p.add("artifact.trace_hash", "must be 16 lower-case hex digits (trace hash version 2)")
	}
	p.oneOf("artifact.verdict", a.Verdict, []string{VerdictPass, VerdictFail, VerdictUnknown, VerdictLimit})
	if a.Verdict != VerdictUnknown && len(a.Undecided) > 0 {
		p.add("artifact.undecided", "a run with verdict %s has no undecided properties", a.Verdict)
	}
	if a.Verdict == VerdictFail && len(a.Violations) == 0 {
		p.add("artifact.violations", "a failed run must list its violations")
	}
	if a.Verdict != VerdictFail && len(a.Violations) > 0 {
		p.add("artifact.violations", "a run with verdict %s has no violations", a.Verdict)
	}
	for i, v := range a.Violations {
		if v.Property == "" {
			p.add(fmt.Sprintf("artifact.violations[%d].property", i), "is required")
		}
		if v.T < 0 {
			p.add(fmt.Sprintf("artifact.violations[%d].t", i), "must be >= 0")
		}
	}
	return p.err()
}

// MarshalArtifact returns a as an indented JSON file that ParseArtifact reads back, with the
// digest of its content as it stands now.
func MarshalArtifact(a *Artifact) []byte {
	data, err := json.MarshalIndent(artifactFile{Artifact: *a, Digest: a.digest()}, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("scenarios: marshalling artifact: %v", err))
	}
	return append(data, '\n')
}

// ArtifactName is the file name an artifact of a run is saved under, before any suffix that
// keeps it from overwriting an older one.
func ArtifactName(scenario string, seed uint64, verdict string) string {
	return fmt.Sprintf("%s-seed%d-%s.json", scenario, seed, verdict)
}

// maxNameSuffix bounds the search for a free file name.
const maxNameSuffix = 10_000

// SaveArtifact writes a into dir (creating it) under ArtifactName, adding -2, -3, ... before
// the extension when the name is taken. It never overwrites a file and returns the path.
func SaveArtifact(dir string, a *Artifact) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("scenarios: creating artifact directory: %w", err)
	}
	name := ArtifactName(a.Scenario.Name, a.Seed, a.Verdict)
	return CreateNew(filepath.Join(dir, name), MarshalArtifact(a))
}

// CreateNew writes data to path, or to the first of path-2, path-3, ... (before the
// extension) that does not exist yet, and returns the path it used. Creation is exclusive, so
// two writers racing for a name both succeed under different names.
func CreateNew(path string, data []byte) (string, error) {
	ext := filepath.Ext(path)
	stem := path[:len(path)-len(ext)]
	for n := 1; n <= maxNameSuffix; n++ {
		candidate := path
		if n > 1 {
			candidate = stem + "-" + strconv.Itoa(n) + ext
		}
		f, err := os.OpenFile(candidate, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("scenarios: %w", err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", fmt.Errorf("scenarios: writing %s: %w", candidate, werr)
		}
		return candidate, nil
	}
	return "", fmt.Errorf("scenarios: %s and %d numbered variants all exist", path, maxNameSuffix)
}
