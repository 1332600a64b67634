/*
Package scripttest runs the scripted interaction tests of protocol and
protocol/chandylamport: text files of commands, each followed by the output
it rendered, in the style of etcd raft's datadriven tests. Only tests import
it (the root imports_test.go refuses a non-test import), so the protocol
packages stay free of it and of its I/O.

# Format

A script is a sequence of entries. Lines that start with "#" and blank
lines between entries are comments; they are kept as written when the
outputs are rewritten. An entry is a command line, a line "----", and the
lines of the command's output up to the next blank line (or the end of the
file):

	# One checkpoint, by hand.
	tick t=100
	----
	counter-write 1

An output may be empty (the "----" line, then the blank line); an output
line may not be blank, since it would end the output when read back.

A command line is a name and words separated by spaces. A word of the form
key=value, whose key is made of lower-case letters, digits and '-', is an
option; any other word (a task name, an edge a->b, a snapshot id a#1) is a
positional argument. Options are kept in the order written, so a command
that applies them one after the other (config) does so in that order.

# Strictness

A script that the harness cannot run as written fails the test, and is
never rewritten: a command line with no "----" under it (or a "----" with
no command), a command the host does not define, an option or a positional
argument the command did not read, an option whose value does not parse,
and a panic anywhere in the command (the host's own checks, or the
protocol's: no golden output expects a protocol to panic). Errors that the
protocol returns are output like any other (the hosts render them as
"error: ..."); errors in the script are failures. Without this a misspelt
command rendered as an error line would be saved as the expected output by
-rewrite and pass from then on.

# Use

A host is a table of commands (Commands), each a function from the parsed
command line to the lines it renders. Run runs every script of a glob
against a fresh host; Check runs one script from a string, which is how a
host tests that its own commands are strict; CheckDocumented keeps a
testdata README's list of commands complete.

# Rewriting

Run the tests with -rewrite to replace each entry's output with what the
code renders now; review the diff before committing it.
*/
package scripttest
