package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzCheckTrace feeds check arbitrary traces on stdin: it exits 0, 1 or 2, never panics,
// and bad input is one line on stderr. A checker that panics on a trace the reader accepted
// is reported on one line too, but is a bug of the checker, so the fuzzer fails on it.
func FuzzCheckTrace(f *testing.F) {
	f.Add([]byte(headerAndPhase))
	var foreign bytes.Buffer
	foreign.WriteString(`{"kind":"trace.header","version":1}` + "\n")
	for i, e := range foreignEvents {
		e = maps(e)
		e["seq"], e["t"] = i, 100*(i+1)
		line, _ := json.Marshal(e)
		foreign.Write(append(line, '\n'))
	}
	f.Add(foreign.Bytes())
	f.Add([]byte(`{"kind":"trace.header","version":1}` + "\n" + `{"seq":0,"t":5,"kind":"sink.writes","task":"s","txn":"x","rids":"a b","values":"1"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := testApp(t, nil)
		a.stdin = bytes.NewReader(data)
		r := a.invoke("check", "-json", "-")
		switch r.code {
		case exitOK, exitUnexpected:
			if r.stderr != "" {
				t.Fatalf("exit %d with stderr %q", r.code, r.stderr)
			}
		case exitUsage:
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "simrun: check: ") {
				t.Fatalf("stderr is not one line: %q", r.stderr)
			}
			if strings.Contains(r.stderr, "checker bug") {
				t.Fatalf("a checker panicked: %s", r.stderr)
			}
		default:
			t.Fatalf("exit %d", r.code)
		}
	})
}
