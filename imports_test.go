package ckptsim

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ckptsim/ckptsim"

// layers says, for each top-level folder of the module (and each sub-layer), which other
// folders its non-test code may import (ARCHITECTURE.md, "Packages"). A folder's own
// sub-packages are always allowed, except the sub-layers, which are layers of their own.
var layers = map[string][]string{
	"":                   nil,
	"trace":              nil,
	"protocol":           nil,
	"sim":                {"trace"},
	"engine":             {"protocol", "trace"},
	"engine/tokens":      {"engine", "protocol", "trace"},
	"engine/live":        {"engine", "protocol", "trace"},
	"faults":             {"sim", "trace", "protocol"},
	"checker":            {"trace", "protocol"},
	"scenarios":          {"protocol", "engine", "engine/tokens", "sim", "trace", "faults", "checker"},
	"scenarios/generate": {"scenarios", "engine", "faults", "trace"},
	"cmd/simrun":         {"scenarios", "scenarios/generate", "engine/live", "trace", "checker", "faults", "zoo", "mutate", "picture", "explore"},
	"explore":            {"scenarios", "scenarios/generate", "checker", "trace"},
	"zoo":                nil,
	"mutate":             nil,
	"picture":            {"trace", "checker"},
	"internal":           nil,
}

// subLayers are folders below a top-level folder that are layers of their own: the barrier
// engine must not import the token engine or the live Env, which build on it, and the
// scenario glue not the generator that draws scenarios.
var subLayers = []string{"engine/tokens", "engine/live", "scenarios/generate"}

// thirdParty says which modules outside the standard library a folder's non-test code may
// import. protocol must stay on the standard library so that any engine can embed it.
var thirdParty = map[string][]string{
	"checker":            {"github.com/anishathalye/porcupine", "github.com/google/go-cmp"},
	"scenarios":          {"golang.org/x/exp"},
	"scenarios/generate": {"pgregory.net/rapid"},
	"cmd/simrun":         {"golang.org/x/exp"},
}

// testOnly lists packages of the module that only tests may import: the
// script harness reads files and fails tests, which the protocol packages
// beside it must never do.
var testOnly = []string{module + "/protocol/internal/scripttest", module + "/internal/rapidtest"}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// layerOf returns the top-level folder (or cmd/NAME) that holds a package of the module.
func layerOf(importPath string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
	for _, sub := range subLayers {
		if rel == sub || strings.HasPrefix(rel, sub+"/") {
			return sub
		}
	}
	parts := strings.Split(rel, "/")
	if parts[0] == "cmd" && len(parts) > 1 {
		return "cmd/" + parts[1]
	}
	return parts[0]
}

func isStandard(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	for _, v := range importViolations(pkgs) {
		t.Error(v)
	}
}

// importViolations returns one message for each import that breaks the rules.
func importViolations(pkgs []listedPackage) []string {
	var found []string
	for _, p := range pkgs {
		layer := layerOf(p.ImportPath)
		allowed, known := layers[layer]
		if !known {
			found = append(found, fmt.Sprintf("%s: folder %q has no import rule; add it to layers and ARCHITECTURE.md", p.ImportPath, layer))
			continue
		}
		for _, imp := range p.Imports {
			switch {
			case slices.Contains(testOnly, imp):
				found = append(found, fmt.Sprintf("%s imports %s, which only tests may import", p.ImportPath, imp))
			case isStandard(imp):
			case strings.HasPrefix(imp, module):
				if to := layerOf(imp); to != layer && !slices.Contains(allowed, to) {
					found = append(found, fmt.Sprintf("%s imports %s: %s may import only %v", p.ImportPath, imp, layer, allowed))
				}
			case !hasPrefixIn(imp, thirdParty[layer]):
				found = append(found, fmt.Sprintf("%s imports %s: %s may import only %v outside the standard library", p.ImportPath, imp, layer, thirdParty[layer]))
			}
		}
	}
	return found
}

func TestImportViolationsAreCaught(t *testing.T) {
	bad := []listedPackage{
		{ImportPath: module + "/engine", Imports: []string{"fmt", module + "/sim"}},
		{ImportPath: module + "/protocol", Imports: []string{"github.com/google/go-cmp/cmp"}},
		{ImportPath: module + "/sim", Imports: []string{module + "/protocol"}},
		{ImportPath: module + "/checker", Imports: []string{module + "/faults"}},
		{ImportPath: module + "/newthing", Imports: nil},
		{ImportPath: module + "/protocol", Imports: []string{module + "/protocol/internal/scripttest"}},
		{ImportPath: module + "/engine", Imports: []string{module + "/engine/tokens"}},
		{ImportPath: module + "/engine/tokens", Imports: []string{module + "/sim"}},
		{ImportPath: module + "/zoo", Imports: []string{module + "/engine"}},
		{ImportPath: module + "/engine", Imports: []string{module + "/zoo"}},
		{ImportPath: module + "/engine/live", Imports: []string{module + "/sim"}},
		{ImportPath: module + "/engine/live", Imports: []string{module + "/scenarios"}},
		{ImportPath: module + "/engine", Imports: []string{module + "/engine/live"}},
	}
	good := []listedPackage{
		{ImportPath: module + "/engine", Imports: []string{"fmt", module + "/protocol", module + "/trace"}},
		{ImportPath: module + "/checker/linz", Imports: []string{module + "/checker", "github.com/anishathalye/porcupine"}},
		{ImportPath: module + "/protocol/internal/scripttest", Imports: []string{"flag", "testing"}},
		{ImportPath: module + "/engine/tokens", Imports: []string{module + "/engine", module + "/protocol/chandylamport"}},
		{ImportPath: module + "/engine/live", Imports: []string{"sync", module + "/engine", module + "/protocol", module + "/trace"}},
	}
	if got := importViolations(bad); len(got) != len(bad) {
		t.Errorf("caught %d of %d violations: %q", len(got), len(bad), got)
	}
	if got := importViolations(good); len(got) != 0 {
		t.Errorf("false alarms: %q", got)
	}
}

func TestLayerOf(t *testing.T) {
	for path, want := range map[string]string{
		module:                             "",
		module + "/protocol/chandylamport": "protocol",
		module + "/cmd/simrun":             "cmd/simrun",
		module + "/sim":                    "sim",
		module + "/engine/extstore":        "engine",
		module + "/engine/tokens":          "engine/tokens",
	} {
		if got := layerOf(path); got != want {
			t.Errorf("layerOf(%s) = %q, want %q", path, got, want)
		}
	}
}

func hasPrefixIn(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
