package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// TestKubernetesManifestIsASweep checks deploy/simrun-sweep.yaml, which no cluster runs in
// CI: every document names its apiVersion and kind, SIMRUN_SHARDS equals the Job's
// completions, and the container's args with that environment are a sweep simrun runs (here
// on a fake runner, over two seeds, writing where a pod would).
func TestKubernetesManifestIsASweep(t *testing.T) {
	data, err := os.ReadFile("../../deploy/simrun-sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i, doc := range strings.Split(text, "\n---\n")[1:] {
		if !regexp.MustCompile(`(?m)^apiVersion: \S+$`).MatchString(doc) || !regexp.MustCompile(`(?m)^kind: \S+$`).MatchString(doc) {
			t.Errorf("document %d lacks apiVersion or kind", i+1)
		}
	}
	completions := regexp.MustCompile(`(?m)^  completions: (\d+)`).FindStringSubmatch(text)
	shards := regexp.MustCompile(`- name: SIMRUN_SHARDS\n\s+value: "(\d+)"`).FindStringSubmatch(text)
	if completions == nil || shards == nil || completions[1] != shards[1] {
		t.Fatalf("completions %v and SIMRUN_SHARDS %v must be one number", completions, shards)
	}
	_, after, _ := strings.Cut(text, "          args:\n")
	list, _, _ := strings.Cut(after, "          env:\n")
	var args []string
	for line := range strings.Lines(list) {
		item, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue // a comment
		}
		item, _, _ = strings.Cut(item, " #")
		if unquoted, err := strconv.Unquote(item); err == nil {
			item = unquoted
		}
		args = append(args, item)
	}
	if len(args) < 2 || args[0] != "sweep" {
		t.Fatalf("args %q are not a sweep", args)
	}
	dir := t.TempDir()
	for i := range args {
		switch {
		case i > 0 && args[i-1] == "-seeds":
			args[i] = "1-2"
		case strings.HasPrefix(args[i], "/results"):
			args[i] = filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(args[i], "/results"), "$(JOB_COMPLETION_INDEX)", "0"))
		}
	}
	a := testApp(t, &scenariotest.Fake{})
	a.getenv = func(name string) string {
		return map[string]string{"JOB_COMPLETION_INDEX": "0", "SIMRUN_SHARDS": shards[1]}[name]
	}
	r := a.invoke(args...)
	if r.code != exitOK {
		t.Fatalf("simrun %q: exit %d: %s", args, r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "shard-0.jsonl")); err != nil {
		t.Errorf("the shard's output: %v", err)
	}
}

// TestSlurmRecipeIsWhatCIRuns: the Slurm commands of docs/simrun.md are the ones .ci/slurm
// submits on its one-node cluster, so the recipe is tested for real.
func TestSlurmRecipeIsWhatCIRuns(t *testing.T) {
	doc, err := os.ReadFile("../../docs/simrun.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/slurm")
	if err != nil {
		t.Fatal(err)
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "\\\n", " ")), " ") }
	_, recipe, ok := strings.Cut(string(doc), "\n    sbatch --array")
	recipe, _, _ = strings.Cut(recipe, "\n\n")
	if !ok {
		t.Fatal("docs/simrun.md has no sbatch recipe")
	}
	for _, command := range strings.Split("sbatch --array"+recipe, "\n    ./simrun") {
		command = squeeze(strings.TrimPrefix(command, " "))
		if !strings.HasPrefix(command, "sbatch") {
			command = "./simrun " + command
		}
		if !strings.Contains(squeeze(string(ci)), command) {
			t.Errorf(".ci/slurm does not run the recipe's %q", command)
		}
	}
}
