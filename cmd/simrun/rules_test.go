package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestRulesDocIsTheTable: docs/rules.md is what simrun rules -markdown prints.
func TestRulesDocIsTheTable(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	writeRulesMarkdown(&got, controlsByRule())
	if !bytes.Equal(got.Bytes(), want) {
		t.Error("docs/rules.md is not what simrun rules -markdown prints: run go run ./cmd/simrun rules -markdown > docs/rules.md")
	}
}

// TestEveryRuleHasAControl: each rule of the specification has a negative control, a zoo
// diff that names it, so that simrun zoo -controls can show the rule catches it.
func TestEveryRuleHasAControl(t *testing.T) {
	controls := controlsByRule()
	for _, r := range checker.Rules() {
		if len(controls[r.Name]) == 0 {
			t.Errorf("rule %s %s has no control: add a diff that breaks it to zoo/controls", r.ID, r.Name)
		}
	}
	for rule, ids := range controls {
		if _, ok := checker.RuleNamed(rule); !ok {
			t.Errorf("controls %v name rule %q, which the specification does not have", ids, rule)
		}
	}
}

// TestRulesCommand: simrun rules prints every rule, -json one object per rule with its
// controls, and two forms at once are bad usage.
func TestRulesCommand(t *testing.T) {
	r := realRun("rules")
	if r.code != exitOK {
		t.Fatalf("rules: exit %d, %q", r.code, r.stderr)
	}
	for _, rule := range checker.Rules() {
		if !strings.Contains(r.stdout, " "+rule.Name+" ("+string(rule.Property)+")") {
			t.Errorf("rules does not list %s", rule.Name)
		}
	}
	r = realRun("rules", "-json")
	if lines := strings.Count(r.stdout, "\n"); r.code != exitOK || lines != len(checker.Rules()) {
		t.Errorf("rules -json: exit %d, %d lines for %d rules", r.code, lines, len(checker.Rules()))
	}
	r = realRun("rules", "-json", "-markdown")
	if r.code != exitUsage || !strings.Contains(r.stderr, "-json and -markdown both choose a form") {
		t.Errorf("rules -json -markdown: exit %d, %q", r.code, r.stderr)
	}
}
