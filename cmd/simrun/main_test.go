package main

import "testing"

// TestInvocationOf: the command printed in replay lines runs where it was printed.
func TestInvocationOf(t *testing.T) {
	for exe, want := range map[string]string{
		"/tmp/go-build123/b001/exe/simrun": "go run ./cmd/simrun", // go run names its binary simrun too
		"/usr/local/bin/simrun":            "simrun",
		"/tmp/go-build9/b001/simrun.test":  "simrun",
		"./bin/simrun-zoo":                 "./bin/simrun-zoo",
	} {
		if got := invocationOf(exe); got != want {
			t.Errorf("invocationOf(%q) = %q, want %q", exe, got, want)
		}
	}
}
