package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
)

// newFlags returns a flag set that reports errors to its caller instead of printing them.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// errHelp is returned by parseArgs when -h or -help was given.
var errHelp = flag.ErrHelp

// parseArgs parses flags that may come before or after positional arguments (the standard
// flag package stops at the first positional one) and returns the positional arguments. After
// "--" everything is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, cleanFlagError(err)
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// cleanFlagError turns the flag package's messages into simrun's wording.
func cleanFlagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Errorf("unknown flag %s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Errorf("flag %s needs a value", name)
	}
	return errors.New(strings.Replace(msg, " for flag ", " for ", 1))
}

// parseCommand parses a command's flags and reports any problem: it returns the positional
// arguments and -1, or an exit status to return at once (help shown, or bad usage).
func (a *app) parseCommand(fs *flag.FlagSet, usage string, args []string) ([]string, int) {
	positional, err := parseArgs(fs, args)
	if err == errHelp {
		fmt.Fprintln(a.stdout, "usage: simrun "+usage)
		fs.SetOutput(a.stdout)
		fs.PrintDefaults()
		return nil, exitOK
	}
	if err != nil {
		hint := ""
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag -"); ok {
			var flags []string
			fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
			if n := nearest(name, flags); n != "" {
				hint = fmt.Sprintf(" (did you mean -%s?)", n)
			}
		}
		return nil, a.fail("%s: %v%s (usage: simrun %s)", fs.Name(), err, hint, usage)
	}
	return positional, -1
}

// seedFlag is a -seed value that knows whether it was given.
type seedFlag struct {
	value uint64
	set   bool
}

func (f *seedFlag) String() string { return strconv.FormatUint(f.value, 10) }

func (f *seedFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errSeedRange
	case err != nil:
		return errors.New("must be a non-negative integer")
	}
	f.value, f.set = n, true
	return nil
}

// errSeedRange says what is wrong with a seed of too many digits, which is an integer, just
// not one a seed can be.
var errSeedRange = fmt.Errorf("out of range: seeds go from 0 to %d", uint64(math.MaxUint64))

// seedRangeFlag is a -seeds value: "A-B" or "A".
type seedRangeFlag struct {
	value *scenarios.SeedRange
}

func (f *seedRangeFlag) String() string {
	if f.value == nil {
		return ""
	}
	return f.value.String()
}

func (f *seedRangeFlag) Set(s string) error {
	r, err := scenarios.ParseSeedRange(s)
	if err != nil {
		first, last, _ := strings.Cut(s, "-")
		for _, end := range []string{first, last} {
			if _, perr := strconv.ParseUint(end, 10, 64); errors.Is(perr, strconv.ErrRange) {
				return errSeedRange
			}
		}
		return errors.New(strings.TrimPrefix(err.Error(), "bad seed range "+strconv.Quote(s)+": "))
	}
	f.value = &r
	return nil
}

// shardFlag is a -shard value: I/N, shard I (from 1) of N.
type shardFlag struct {
	index, count uint64
}

func (f *shardFlag) String() string {
	if f.count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", f.index, f.count)
}

func (f *shardFlag) Set(s string) error {
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.ParseUint(is, 10, 64)
	n, nerr := strconv.ParseUint(ns, 10, 64)
	if !ok || ierr != nil || nerr != nil || n == 0 || i < 1 || i > n {
		return errors.New("want I/N with 1 <= I <= N, such as 2/4")
	}
	f.index, f.count = i, n
	return nil
}

// contains reports whether the shard holds seed: shard I of N takes the seeds congruent to
// I-1 modulo N, so the N shards of any range partition it and each gets an even share.
func (f *shardFlag) contains(seed uint64) bool {
	return f.count == 0 || seed%f.count == f.index-1
}

// countIn returns how many seeds of r the shard holds.
func (f *shardFlag) countIn(r scenarios.SeedRange) uint64 {
	if f.count == 0 {
		return r.Count()
	}
	// Seeds s in [First, Last] with s mod N == I-1: count those below Last+1 minus those
	// below First, each via floor((x - (I-1) + N - 1) / N) for x >= 0.
	below := func(x uint64) uint64 { // seeds s < x with s mod N == I-1
		residue := f.index - 1
		if x <= residue {
			return 0
		}
		return (x-residue-1)/f.count + 1
	}
	last := below(r.Last) // seeds < Last
	if r.Last%f.count == f.index-1 {
		last++
	}
	return last - below(r.First)
}

// positiveInt is a flag value that must be at least 1.
type positiveInt struct {
	value int
}

func (f *positiveInt) String() string { return strconv.Itoa(f.value) }

func (f *positiveInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("must be a positive integer")
	}
	f.value = n
	return nil
}
