package main

import (
	"slices"
	"strings"
	"testing"
)

// TestChooseShard is the table of how a sweep takes its shard: an explicit -shard first,
// then a Kubernetes Indexed Job's or a Slurm array task's variables, and every malformed,
// inconsistent or half-given combination refused with a message that names what is wrong.
func TestChooseShard(t *testing.T) {
	slurm := func(id, min, count string, more ...string) map[string]string {
		env := map[string]string{envSlurmTaskID: id, envSlurmTaskMin: min, envSlurmTaskCount: count}
		for i := 0; i+1 < len(more); i += 2 {
			env[more[i]] = more[i+1]
		}
		return env
	}
	for _, tc := range []struct {
		name       string
		flagShard  string // -shard, "" when not given
		flagShards uint64 // -shards, 0 when not given
		env        map[string]string
		want       string // the shard I/N, "" for the whole sweep
		source     string // where it came from, or the error's text
		isErr      bool
	}{
		{name: "nothing: the whole sweep", env: nil, want: ""},
		{name: "unrelated variables", env: map[string]string{"SLURM_JOB_ID": "7", "HOSTNAME": "pod-0"}, want: ""},
		{name: "empty variables count as unset", env: map[string]string{envJobCompletionIndex: "", envSlurmTaskID: "", envSimrunShards: ""}, want: ""},
		{name: "-shard", flagShard: "2/4", want: "2/4", source: "-shard 2/4"},
		{name: "-shard wins over Kubernetes", flagShard: "2/4", env: map[string]string{envJobCompletionIndex: "0", envSimrunShards: "3"}, want: "2/4", source: "-shard 2/4"},
		{name: "-shard wins over Slurm", flagShard: "1/2", env: slurm("5", "1", "9"), want: "1/2", source: "-shard 1/2"},
		{name: "-shard wins over a malformed environment", flagShard: "1/2", env: map[string]string{envJobCompletionIndex: "x", envSimrunShards: "-1"}, want: "1/2", source: "-shard 1/2"},
		{name: "-shard with -shards", flagShard: "1/2", flagShards: 2, isErr: true, source: "-shard 1/2 and -shards 2: give one"},

		{name: "Kubernetes index 0 is shard 1", env: map[string]string{envJobCompletionIndex: "0", envSimrunShards: "3"}, want: "1/3", source: "JOB_COMPLETION_INDEX=0, SIMRUN_SHARDS=3"},
		{name: "Kubernetes last index", env: map[string]string{envJobCompletionIndex: "2", envSimrunShards: "3"}, want: "3/3", source: "JOB_COMPLETION_INDEX=2, SIMRUN_SHARDS=3"},
		{name: "Kubernetes one completion", env: map[string]string{envJobCompletionIndex: "0", envSimrunShards: "1"}, want: "1/1", source: "JOB_COMPLETION_INDEX=0, SIMRUN_SHARDS=1"},
		{name: "Kubernetes count from -shards", flagShards: 4, env: map[string]string{envJobCompletionIndex: "3"}, want: "4/4", source: "JOB_COMPLETION_INDEX=3, -shards 4"},
		{name: "Kubernetes -shards agreeing with SIMRUN_SHARDS", flagShards: 4, env: map[string]string{envJobCompletionIndex: "1", envSimrunShards: "4"}, want: "2/4", source: "JOB_COMPLETION_INDEX=1, SIMRUN_SHARDS=4"},
		{name: "Kubernetes -shards disagreeing with SIMRUN_SHARDS", flagShards: 5, env: map[string]string{envJobCompletionIndex: "1", envSimrunShards: "4"}, isErr: true, source: "-shards 5 and SIMRUN_SHARDS=4 disagree"},
		{name: "Kubernetes without a count", env: map[string]string{envJobCompletionIndex: "1"}, isErr: true, source: "JOB_COMPLETION_INDEX=1 gives the shard's index but not the count: set SIMRUN_SHARDS"},
		{name: "Kubernetes index past the count", env: map[string]string{envJobCompletionIndex: "3", envSimrunShards: "3"}, isErr: true, source: "JOB_COMPLETION_INDEX=3 is not below the shard count (SIMRUN_SHARDS=3)"},
		{name: "Kubernetes negative index", env: map[string]string{envJobCompletionIndex: "-1", envSimrunShards: "3"}, isErr: true, source: `JOB_COMPLETION_INDEX="-1": want a non-negative integer`},
		{name: "Kubernetes index with a space", env: map[string]string{envJobCompletionIndex: "1 ", envSimrunShards: "3"}, isErr: true, source: `JOB_COMPLETION_INDEX="1 "`},
		{name: "Kubernetes index not a number", env: map[string]string{envJobCompletionIndex: "one", envSimrunShards: "3"}, isErr: true, source: `JOB_COMPLETION_INDEX="one"`},
		{name: "SIMRUN_SHARDS zero", env: map[string]string{envJobCompletionIndex: "0", envSimrunShards: "0"}, isErr: true, source: `SIMRUN_SHARDS="0": want a positive integer`},
		{name: "SIMRUN_SHARDS not a number", env: map[string]string{envJobCompletionIndex: "0", envSimrunShards: "three"}, isErr: true, source: `SIMRUN_SHARDS="three": want a positive integer`},
		{name: "SIMRUN_SHARDS without an index", env: map[string]string{envSimrunShards: "3"}, isErr: true, source: "SIMRUN_SHARDS=3 gives the shard count but neither JOB_COMPLETION_INDEX"},
		{name: "-shards without an index", flagShards: 3, isErr: true, source: "-shards 3 gives the shard count but neither"},

		{name: "Slurm array from 0", env: slurm("0", "0", "4"), want: "1/4", source: "SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=4"},
		{name: "Slurm array from 1", env: slurm("1", "1", "3", envSlurmTaskMax, "3"), want: "1/3", source: "SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=3"},
		{name: "Slurm last task of an array from 1", env: slurm("3", "1", "3", envSlurmTaskMax, "3"), want: "3/3"},
		{name: "Slurm array from 10", env: slurm("12", "10", "5", envSlurmTaskMax, "14", envSlurmTaskStep, "1"), want: "3/5"},
		{name: "Slurm array with a step", env: slurm("7", "1", "4", envSlurmTaskMax, "7", envSlurmTaskStep, "2"), want: "4/4", source: "SLURM_ARRAY_TASK_COUNT=4, SLURM_ARRAY_TASK_STEP=2"},
		{name: "Slurm with an agreeing SIMRUN_SHARDS", env: slurm("2", "1", "3", envSimrunShards, "3"), want: "2/3"},
		{name: "Slurm with an agreeing -shards", flagShards: 3, env: slurm("2", "1", "3"), want: "2/3"},
		{name: "Slurm with a disagreeing -shards", flagShards: 4, env: slurm("2", "1", "3"), isErr: true, source: "-shards 4 disagrees with SLURM_ARRAY_TASK_COUNT=3"},
		{name: "Slurm with a disagreeing SIMRUN_SHARDS", env: slurm("2", "1", "3", envSimrunShards, "2"), isErr: true, source: "SIMRUN_SHARDS=2 disagrees with SLURM_ARRAY_TASK_COUNT=3"},
		{name: "Slurm without a count", env: map[string]string{envSlurmTaskID: "1", envSlurmTaskMin: "1"}, isErr: true, source: "SLURM_ARRAY_TASK_COUNT is not set"},
		{name: "Slurm without a minimum", env: map[string]string{envSlurmTaskID: "1", envSlurmTaskCount: "3"}, isErr: true, source: "SLURM_ARRAY_TASK_MIN is not set"},
		{name: "Slurm ID not a number", env: slurm("x", "1", "3"), isErr: true, source: `SLURM_ARRAY_TASK_ID="x" is not a non-negative integer`},
		{name: "Slurm count zero", env: slurm("0", "0", "0"), isErr: true, source: "an array of no tasks"},
		{name: "Slurm step zero", env: slurm("0", "0", "2", envSlurmTaskStep, "0"), isErr: true, source: "SLURM_ARRAY_TASK_STEP=0: a step must be positive"},
		{name: "Slurm ID below the minimum", env: slurm("0", "1", "3"), isErr: true, source: "below the array's first"},
		{name: "Slurm ID past the count", env: slurm("4", "1", "3"), isErr: true, source: "past the array's 3 tasks"},
		{name: "Slurm ID off the step", env: slurm("2", "1", "4", envSlurmTaskStep, "2"), isErr: true, source: "not the first plus a multiple of the step"},
		{name: "Slurm array given as a list", env: slurm("3", "1", "3", envSlurmTaskMax, "7"), isErr: true, source: "SLURM_ARRAY_TASK_MAX=7: the array is not a range of 3 tasks from 1 by 1"},
		{name: "Slurm maximum below the minimum", env: slurm("1", "1", "1", envSlurmTaskMax, "0"), isErr: true, source: "the array is not a range"},

		{name: "Kubernetes and Slurm at once", env: map[string]string{envJobCompletionIndex: "0", envSimrunShards: "2", envSlurmTaskID: "1", envSlurmTaskMin: "1", envSlurmTaskCount: "2"}, isErr: true, source: "both JOB_COMPLETION_INDEX=0 and SLURM_ARRAY_TASK_ID=1 are set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var flagShard shardFlag
			if tc.flagShard != "" {
				if err := flagShard.Set(tc.flagShard); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(name string) string { return tc.env[name] }
			got, err := chooseShard(flagShard, tc.flagShards, getenv)
			if tc.isErr {
				if err == nil {
					t.Fatalf("got shard %q from %q, want an error containing %q", got.shard.String(), got.source, tc.source)
				}
				if !strings.Contains(err.Error(), tc.source) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q\ndoes not contain %q on one line", err, tc.source)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v, want shard %q", err, tc.want)
			}
			if got.shard.String() != tc.want || !strings.Contains(got.source, tc.source) {
				t.Errorf("shard %q from %q, want %q from %q", got.shard.String(), got.source, tc.want, tc.source)
			}
			if fromEnv := tc.flagShard == "" && tc.want != ""; got.fromEnvironment != fromEnv {
				t.Errorf("fromEnvironment %v, want %v", got.fromEnvironment, fromEnv)
			}
			if (tc.want == "") != (got.source == "") {
				t.Errorf("source %q for shard %q", got.source, tc.want)
			}
		})
	}
}

// TestSlurmShardsPartitionTheArray: whatever the array's first index and step, its tasks
// get the shards 1 to COUNT, each once.
func TestSlurmShardsPartitionTheArray(t *testing.T) {
	for _, a := range []struct{ first, step, count uint64 }{{0, 1, 1}, {0, 1, 5}, {1, 1, 4}, {3, 4, 6}, {100, 7, 3}} {
		seen := map[string]bool{}
		for k := range a.count {
			id := a.first + k*a.step
			env := map[string]string{
				envSlurmTaskID: itoa(id), envSlurmTaskMin: itoa(a.first), envSlurmTaskCount: itoa(a.count),
				envSlurmTaskMax: itoa(a.first + (a.count-1)*a.step), envSlurmTaskStep: itoa(a.step),
			}
			got, err := chooseShard(shardFlag{}, 0, func(name string) string { return env[name] })
			if err != nil {
				t.Fatalf("array %+v, task %d: %v", a, id, err)
			}
			seen[got.shard.String()] = true
		}
		for i := uint64(1); i <= a.count; i++ {
			if s := (&shardFlag{index: i, count: a.count}).String(); !seen[s] {
				t.Errorf("array %+v: no task got shard %s (got %v)", a, s, seen)
			}
		}
	}
}

func itoa(n uint64) string { return (&seedFlag{value: n}).String() }

// TestZooAndCoverSweepsAreWhole: the sweeps simrun zoo and simrun cover start must not
// pick up a shard from the batch engine simrun itself runs under.
func TestZooAndCoverSweepsAreWhole(t *testing.T) {
	t.Setenv(envJobCompletionIndex, "1")
	t.Setenv(envSimrunShards, "3")
	t.Setenv(envSlurmTaskID, "4")
	t.Setenv("SIMRUN_UNRELATED", "kept")
	env := unshardedEnv()
	for _, kv := range env {
		if strings.HasPrefix(kv, envJobCompletionIndex+"=") || strings.HasPrefix(kv, envSimrunShards+"=") || strings.HasPrefix(kv, "SLURM_ARRAY_") {
			t.Errorf("%s left in the environment of a whole sweep", kv)
		}
	}
	if !slices.Contains(env, "SIMRUN_UNRELATED=kept") {
		t.Error("an unrelated variable was dropped")
	}
}
