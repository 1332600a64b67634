// Package mutate is mutation testing with the verdicts as the yardstick: it enumerates the
// mutants of the protocol's and the engine's source, draws a seeded sample of them, writes
// each as a `go build -overlay` file, and classifies what caught it. simrun mutate runs the
// sample: the mutated package's own unit tests, the default sweep, and a short exploration
// when the sweep's verdicts miss it.
//
// A mutant is one small edit of one file's text (Mutant): an operator swapped (< and <=,
// > and >=, == and !=, + and -, && and ||, += and -=), an if or for condition negated or
// replaced by true or false, a statement deleted (a call, an assignment that declares
// nothing, an increment, a return that does not end its function), an integer constant
// moved by one either way or to zero. Enumerate walks the syntax trees (go/ast) in a fixed
// order, so a mutant's id, DIR/FILE:LINE:COL:OPERATOR, is stable while its file is
// unchanged; generated files have none. Whether a mutant compiles is the compiler's to say:
// the runner builds it and draws past one that does not, counting it.
//
// Order is the sample: a permutation of the mutants by seed, each file's mutants shuffled
// and laid at even strides with a random offset, so that any prefix holds every file's share
// in proportion to its mutants. A sample of n is the first n that compile.
//
// Classify reads what a mutated simrun printed (ParseRuns: its -json lines) and says how the
// harness saw the mutant, best first: rule (a property of the specification or a protocol
// invariant failed), verdict (another unexpected verdict), panic, error (the mutated simrun
// refused to run), limit, none; the runner adds hang for a step that outran its timeout.
// Only rule and verdict count as caught: a panic says something broke, not what. Changed
// compares the sweep's trace hashes with the correct build's, which tells a mutant no run
// can see from one the checkers missed.
//
// equivalent.txt marks mutants equivalent to the original program, by id with the reason;
// they are reported as equivalent, not as survivors. The package uses the standard library
// only and imports nothing it mutates, like package zoo.
package mutate
