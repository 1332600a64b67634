// Package ckptsim builds, breaks and verifies checkpoint protocols deterministically.
//
// The code lives in the sub-packages; ARCHITECTURE.md describes them and the one-way imports
// between them, which imports_test.go in this package enforces.
package ckptsim
