package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// buildID names this build for artifacts: a replay on the same build must reproduce the
// recorded trace hash exactly, so a mismatch there is nondeterminism, while a mismatch on
// another build may just be a code change. A clean version-control checkout is named by its
// commit; anything else (go run, go test, local changes) by a hash of the executable, which
// changes exactly when the code does.
var buildID = sync.OnceValue(func() string {
	var revision string
	modified := false
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if revision != "" && !modified {
		return "git-" + revision[:min(12, len(revision))]
	}
	if sum := executableHash(); sum != "" {
		return "exe-" + sum
	}
	return "unknown"
})

func executableHash() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
