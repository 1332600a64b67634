package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
)

// loadScenario resolves a -scenario value: a built-in name, or the path of a scenario file.
// A value with a path separator or a .json extension is always a file; a bare word is a
// built-in unless no built-in has that name and a file does.
func (a *app) loadScenario(arg string) (*scenarios.Scenario, error) {
	if arg == "" {
		return nil, errors.New("-scenario is required (a built-in name from simrun list, or a scenario file)")
	}
	if !looksLikePath(arg) {
		for _, s := range a.builtins() {
			if s.Name == arg {
				return s, nil
			}
		}
		if _, err := os.Stat(arg); err != nil {
			var names []string
			for _, s := range a.builtins() {
				names = append(names, s.Name)
			}
			return nil, fmt.Errorf("unknown scenario %q: not a built-in (see simrun list) and no such file%s", arg, didYouMean(arg, names))
		}
	}
	data, err := readInput(arg)
	if err != nil {
		return nil, err
	}
	s, err := scenarios.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", arg, trimPackage(err))
	}
	return s, nil
}

func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".json")
}

// loadArtifact reads and checks an artifact file.
func loadArtifact(path string) (*scenarios.Artifact, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	art, err := scenarios.ParseArtifact(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid artifact: %s", path, trimPackage(err))
	}
	return art, nil
}

// readInput reads a scenario or artifact file, refusing one larger than the parsers accept.
func readInput(path string) ([]byte, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, scenarios.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, err)
	}
	if len(data) > scenarios.MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, scenarios.MaxFileBytes)
	}
	return data, nil
}

func describeFileError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", path)
	}
	return fmt.Errorf("cannot open %s: %v", path, err)
}

// trimPackage drops the "scenarios: " prefix, which means nothing to a user of the tool.
func trimPackage(err error) string {
	return strings.TrimPrefix(err.Error(), "scenarios: ")
}
