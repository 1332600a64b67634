package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A sweep that outgrows one machine runs as N processes of a batch engine, and each process
// learns which one it is from its environment. simrun reads two engines' conventions
// (docs/simrun.md, "Sweeps across machines"):
//
//   - A Kubernetes Indexed Job (completionMode: Indexed) sets JOB_COMPLETION_INDEX in each
//     pod, from 0 to completions-1. Kubernetes sets no variable with the count, so it comes
//     from -shards N or SIMRUN_SHARDS, which the manifest sets to the Job's completions.
//   - A Slurm array job (sbatch --array=A-B[:S]) sets SLURM_ARRAY_TASK_ID to the task's
//     array index, which starts at SLURM_ARRAY_TASK_MIN (an array may start at 1, or at
//     anything) and advances by SLURM_ARRAY_TASK_STEP, and SLURM_ARRAY_TASK_COUNT to the
//     number of tasks. The shard is (ID-MIN)/STEP+1 of COUNT.
//
// Precedence: an explicit -shard I/N wins and the environment is not read. Otherwise the
// environment decides, and anything in it that is malformed, inconsistent or half there is
// bad usage (exit status 2): a sweep that silently ran the wrong shard, or every seed N
// times over, would come back as a summary that looks fine.

// The variables read, by engine. An empty variable counts as unset.
const (
	envJobCompletionIndex = "JOB_COMPLETION_INDEX"
	envSimrunShards       = "SIMRUN_SHARDS"
	envSlurmTaskID        = "SLURM_ARRAY_TASK_ID"
	envSlurmTaskMin       = "SLURM_ARRAY_TASK_MIN"
	envSlurmTaskMax       = "SLURM_ARRAY_TASK_MAX"
	envSlurmTaskStep      = "SLURM_ARRAY_TASK_STEP"
	envSlurmTaskCount     = "SLURM_ARRAY_TASK_COUNT"
)

// shardChoice is the shard a sweep runs and where it came from.
type shardChoice struct {
	shard shardFlag // count 0: the whole sweep
	// source says where the shard came from, for the sweep's output: "-shard 2/3",
	// "JOB_COMPLETION_INDEX=1, SIMRUN_SHARDS=3", ...; empty for the whole sweep.
	source string
	// fromEnvironment is set when a batch engine's variables chose the shard.
	fromEnvironment bool
}

// describe is the line a text sweep prints first: "shard 2/3 (from JOB_COMPLETION_INDEX=1,
// SIMRUN_SHARDS=3): the seeds congruent to 1 mod 3".
func (c shardChoice) describe() string {
	return fmt.Sprintf("shard %s (from %s): the seeds congruent to %d mod %d", c.shard.String(), c.source, c.shard.index-1, c.shard.count)
}

// chooseShard decides a sweep's shard. flagShard is -shard (count 0 when not given),
// flagShards is -shards (0 when not given), getenv reads the environment (nil: an empty
// one).
func chooseShard(flagShard shardFlag, flagShards uint64, getenv func(string) string) (shardChoice, error) {
	if flagShard.count != 0 {
		if flagShards != 0 {
			return shardChoice{}, fmt.Errorf("-shard %s and -shards %d: give one (-shards is the count for an index from the environment)", flagShard.String(), flagShards)
		}
		return shardChoice{shard: flagShard, source: "-shard " + flagShard.String()}, nil
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	count, countSource, err := shardCount(flagShards, getenv)
	if err != nil {
		return shardChoice{}, err
	}
	k8s, slurm := getenv(envJobCompletionIndex), getenv(envSlurmTaskID)
	switch {
	case k8s != "" && slurm != "":
		return shardChoice{}, fmt.Errorf("both %s=%s and %s=%s are set: give -shard I/N to say which shard this is", envJobCompletionIndex, k8s, envSlurmTaskID, slurm)
	case k8s != "":
		return kubernetesShard(k8s, count, countSource)
	case slurm != "":
		return slurmShard(slurm, count, countSource, getenv)
	case countSource != "":
		return shardChoice{}, fmt.Errorf("%s gives the shard count but neither %s (a Kubernetes Indexed Job, completionMode: Indexed) nor %s (a Slurm array job) gives the index: give -shard I/N, or leave out the count to sweep everything", countSource, envJobCompletionIndex, envSlurmTaskID)
	}
	return shardChoice{}, nil
}

// shardCount returns the count from -shards and SIMRUN_SHARDS (0 when neither is given) and
// how it was given ("SIMRUN_SHARDS=3", "-shards 3"). The two must agree when both are there:
// the flag is typed for one run and the variable set for a whole Job, so a difference is a
// mistake in one of them, and guessing which would run the wrong shards.
func shardCount(flagShards uint64, getenv func(string) string) (uint64, string, error) {
	env := getenv(envSimrunShards)
	if env == "" {
		if flagShards == 0 {
			return 0, "", nil
		}
		return flagShards, fmt.Sprintf("-shards %d", flagShards), nil
	}
	n, err := strconv.ParseUint(env, 10, 64)
	if err != nil || n == 0 {
		return 0, "", fmt.Errorf("%s=%q: want a positive integer, the number of shards (an Indexed Job's completions)", envSimrunShards, env)
	}
	if flagShards != 0 && flagShards != n {
		return 0, "", fmt.Errorf("-shards %d and %s=%d disagree on the number of shards", flagShards, envSimrunShards, n)
	}
	return n, fmt.Sprintf("%s=%d", envSimrunShards, n), nil
}

// kubernetesShard is the shard of an Indexed Job's pod: JOB_COMPLETION_INDEX counts from 0,
// shards from 1.
func kubernetesShard(index string, count uint64, countSource string) (shardChoice, error) {
	i, err := strconv.ParseUint(index, 10, 64)
	if err != nil {
		return shardChoice{}, fmt.Errorf("%s=%q: want a non-negative integer (Kubernetes numbers an Indexed Job's pods from 0)", envJobCompletionIndex, index)
	}
	if count == 0 {
		return shardChoice{}, fmt.Errorf("%s=%d gives the shard's index but not the count: set %s (or give -shards N) to the Indexed Job's completions", envJobCompletionIndex, i, envSimrunShards)
	}
	if i >= count {
		return shardChoice{}, fmt.Errorf("%s=%d is not below the shard count (%s): the count must be the Indexed Job's completions, and the index runs from 0 to completions-1", envJobCompletionIndex, i, countSource)
	}
	return shardChoice{
		shard:           shardFlag{index: i + 1, count: count},
		source:          fmt.Sprintf("%s=%d, %s", envJobCompletionIndex, i, countSource),
		fromEnvironment: true,
	}, nil
}

// slurmShard is the shard of a task of a Slurm array --array=MIN-MAX:STEP. An array given as
// a list (--array=1,3,7) is refused unless it happens to be such a range: its tasks could not
// be numbered 1 to COUNT from the variables alone.
func slurmShard(id string, count uint64, countSource string, getenv func(string) string) (shardChoice, error) {
	var problems []string
	number := func(name string, required bool) uint64 {
		v := getenv(name)
		if v == "" {
			if required {
				problems = append(problems, fmt.Sprintf("%s is not set", name))
			}
			return 0
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s=%q is not a non-negative integer", name, v))
		}
		return n
	}
	taskID := number(envSlurmTaskID, true)
	taskMin := number(envSlurmTaskMin, true)
	taskCount := number(envSlurmTaskCount, true)
	taskMax := number(envSlurmTaskMax, false)
	step := uint64(1)
	if getenv(envSlurmTaskStep) != "" {
		step = number(envSlurmTaskStep, false)
		if step == 0 && len(problems) == 0 {
			problems = append(problems, envSlurmTaskStep+"=0: a step must be positive")
		}
	}
	if len(problems) > 0 {
		return shardChoice{}, fmt.Errorf("%s=%s: %s (simrun takes a Slurm array task's shard from %s, %s and %s)",
			envSlurmTaskID, id, strings.Join(problems, "; "), envSlurmTaskID, envSlurmTaskMin, envSlurmTaskCount)
	}
	source := fmt.Sprintf("%s=%d, %s=%d, %s=%d", envSlurmTaskID, taskID, envSlurmTaskMin, taskMin, envSlurmTaskCount, taskCount)
	if step != 1 {
		source += fmt.Sprintf(", %s=%d", envSlurmTaskStep, step)
	}
	if err := checkSlurmArray(taskID, taskMin, taskMax, getenv(envSlurmTaskMax) != "", step, taskCount); err != nil {
		return shardChoice{}, fmt.Errorf("%s: %v", source, err)
	}
	if count != 0 && count != taskCount {
		return shardChoice{}, fmt.Errorf("%s disagrees with %s=%d on the number of shards", countSource, envSlurmTaskCount, taskCount)
	}
	return shardChoice{shard: shardFlag{index: (taskID-taskMin)/step + 1, count: taskCount}, source: source, fromEnvironment: true}, nil
}

// checkSlurmArray checks that task id is one of count tasks min, min+step, ..., and, when
// max is known, that the array ends there.
func checkSlurmArray(id, taskMin, taskMax uint64, maxKnown bool, step, count uint64) error {
	switch {
	case count == 0:
		return errors.New("an array of no tasks")
	case id < taskMin:
		return fmt.Errorf("the task's ID is below the array's first")
	case (id-taskMin)%step != 0:
		return fmt.Errorf("the task's ID is not the first plus a multiple of the step")
	case (id-taskMin)/step >= count:
		return fmt.Errorf("the task's ID is past the array's %d tasks", count)
	case maxKnown && (taskMax < taskMin || (taskMax-taskMin)%step != 0 || (taskMax-taskMin)/step != count-1):
		return fmt.Errorf("%s=%d: the array is not a range of %d tasks from %d by %d; give it as --array=A-B or A-B:S", envSlurmTaskMax, taskMax, count, taskMin, step)
	}
	return nil
}

// unshardedEnv is the environment without the batch engines' shard variables, for the
// sweeps simrun zoo and simrun cover start themselves: each must run its whole sweep even
// when simrun runs as a pod of an Indexed Job or a task of a Slurm array.
func unshardedEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{envJobCompletionIndex, envSimrunShards, envSlurmTaskID,
			envSlurmTaskMin, envSlurmTaskMax, envSlurmTaskStep, envSlurmTaskCount}, name)
	})
}
