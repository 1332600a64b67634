package scripttest

import (
	"fmt"
	"strings"
)

// separator is the line between a command and its output.
const separator = "----"

// entry is one command of a script with the lines around it.
type entry struct {
	comments []string // comment and blank lines before the command, as written
	command  *Command
	expected []string // the output recorded in the file
}

// script is a parsed file: its entries and the comment lines after the last one.
type script struct {
	entries []entry
	trailer []string
}

// parse reads a script. A malformed file is an error, never a script with
// fewer entries than it seems to have.
func parse(file, text string) (script, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	var s script
	var pending []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			pending = append(pending, line)
			continue
		}
		if line == separator {
			return script{}, fmt.Errorf("%s:%d: %s with no command above it", file, i+1, separator)
		}
		cmd := parseCommand(file, i+1, line)
		if i+1 >= len(lines) || lines[i+1] != separator {
			return script{}, fmt.Errorf("%s:%d: command %q has no %s line under it", file, i+1, line, separator)
		}
		e := entry{comments: pending, command: cmd}
		pending = nil
		i += 2
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			e.expected = append(e.expected, lines[i])
		}
		i-- // the blank line that ends the output is a comment of the next entry
		s.entries = append(s.entries, e)
	}
	s.trailer = pending
	return s, nil
}

// parseCommand splits a command line into its name, positional words and
// options.
func parseCommand(file string, line int, text string) *Command {
	fields := strings.Fields(text)
	c := &Command{File: file, Line: line, Name: fields[0], text: text}
	for _, f := range fields[1:] {
		if key, value, ok := strings.Cut(f, "="); ok && isOptionKey(key) {
			c.options = append(c.options, option{Option: Option{Key: key, Value: value}})
			continue
		}
		c.words = append(c.words, word{text: f})
	}
	return c
}

// isOptionKey reports whether key can name an option: lower-case letters,
// digits and '-'. An edge "a->b=" or a value "x=y" with other characters in
// front of '=' stays a positional word.
func isOptionKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// render writes a script back with the given outputs, one per entry.
func (s script) render(outputs [][]string) string {
	var b strings.Builder
	for i, e := range s.entries {
		for _, c := range e.comments {
			b.WriteString(c + "\n")
		}
		b.WriteString(e.command.text + "\n" + separator + "\n")
		for _, line := range outputs[i] {
			b.WriteString(line + "\n")
		}
	}
	for _, c := range s.trailer {
		b.WriteString(c + "\n")
	}
	return b.String()
}
