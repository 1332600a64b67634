package scripttest

import (
	"fmt"
	"strconv"
	"strings"
)

// Option is one key=value word of a command line.
type Option struct {
	Key, Value string
}

type option struct {
	Option
	used bool
}

type word struct {
	text string
	used bool
}

// Command is one command line of a script. A command reads its arguments
// through the methods below, which mark them used: a word the command never
// read fails the test, so a misspelt option cannot pass silently. The
// methods that find a script error (a missing argument, a value that does
// not parse) fail the command through Fatalf.
type Command struct {
	File string // the script's path
	Line int    // the command's line in it, from 1
	Name string

	text    string
	words   []word
	options []option
}

// String returns the command line as written.
func (c *Command) String() string { return c.text }

// scriptError is the panic value of Fatalf: a mistake in the script, as
// opposed to a panic of the code under test. Both fail the test; only the
// latter prints a stack.
type scriptError struct{ msg string }

// Fatalf fails the command, and with it the test: the script asked for
// something the host cannot do. It does not return.
func (c *Command) Fatalf(format string, args ...any) {
	panic(scriptError{fmt.Sprintf(format, args...)})
}

// NArgs returns the number of positional arguments, without marking them.
func (c *Command) NArgs() int { return len(c.words) }

// Arg returns positional argument i (from 0); it fails the command if there
// are not that many.
func (c *Command) Arg(i int) string {
	if i >= len(c.words) {
		c.Fatalf("%s wants at least %d positional arguments, got %d", c.Name, i+1, len(c.words))
	}
	c.words[i].used = true
	return c.words[i].text
}

// Args returns every positional argument, in order, and marks them all.
func (c *Command) Args() []string {
	out := make([]string, len(c.words))
	for i := range c.words {
		c.words[i].used = true
		out[i] = c.words[i].text
	}
	return out
}

// ArgsExactly returns the positional arguments after checking that there
// are exactly n of them.
func (c *Command) ArgsExactly(n int) []string {
	if len(c.words) != n {
		c.Fatalf("%s wants %d positional arguments, got %d", c.Name, n, len(c.words))
	}
	return c.Args()
}

// Flag reports whether the bare word name is among the positional
// arguments, and marks it.
func (c *Command) Flag(name string) bool {
	found := false
	for i := range c.words {
		if c.words[i].text == name {
			c.words[i].used = true
			found = true
		}
	}
	return found
}

// Option returns the value of option key. An option given twice fails the
// command: which of the two was meant is not clear.
func (c *Command) Option(key string) (string, bool) {
	at := -1
	for i := range c.options {
		if c.options[i].Key == key {
			if at >= 0 {
				c.Fatalf("option %s given twice", key)
			}
			at = i
		}
	}
	if at < 0 {
		return "", false
	}
	c.options[at].used = true
	return c.options[at].Value, true
}

// StringOption returns option key, or def when it is absent.
func (c *Command) StringOption(key, def string) string {
	if v, ok := c.Option(key); ok {
		return v
	}
	return def
}

// Int returns option key as an integer, def when it is absent; a value that
// is not one fails the command.
func (c *Command) Int(key string, def int64) int64 {
	v, ok := c.Option(key)
	if !ok {
		return def
	}
	return c.ParseInt(key, v)
}

// ParseInt parses v, the value of option key, as a decimal integer.
func (c *Command) ParseInt(key, v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		c.Fatalf("option %s=%s: not an integer", key, v)
	}
	return n
}

// Options returns every option in the order written, and marks them all:
// the command must apply each one or fail on it.
func (c *Command) Options() []Option {
	out := make([]Option, len(c.options))
	for i := range c.options {
		c.options[i].used = true
		out[i] = c.options[i].Option
	}
	return out
}

// unused returns the words of the command line that the command never read.
func (c *Command) unused() []string {
	var out []string
	for _, w := range c.words {
		if !w.used {
			out = append(out, w.text)
		}
	}
	for _, o := range c.options {
		if !o.used {
			out = append(out, o.Key+"="+o.Value)
		}
	}
	return out
}

// location returns "file:line: command" for messages.
func (c *Command) location() string {
	return c.File + ":" + strconv.Itoa(c.Line) + ": " + strings.TrimSpace(c.text)
}
