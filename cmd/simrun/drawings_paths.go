package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// namedFile is a file a command reads or writes, with the flag or argument that names it,
// so that a conflict can say which two collide.
type namedFile struct {
	name, path string
}

// checkPicturePaths refuses picture files (-html, -perfetto) that cannot be what the user
// meant, before any work. A picture never goes to standard output: the page and the
// trace-event file are whole documents that the command's report would break, so "-" is
// refused rather than written as a file called "-". Two pictures in one file, or a picture
// over another file of the command (the trace it reads or writes, the reference it reads),
// would destroy one of them, so they are refused too.
func checkPicturePaths(htmlPath, perfettoPath string, others ...namedFile) error {
	pictures := []namedFile{{"-html", htmlPath}, {"-perfetto", perfettoPath}}
	for _, p := range pictures {
		if p.path == "-" {
			return fmt.Errorf("%s -: a picture is written to a file, not to standard output; name a file", p.name)
		}
	}
	all := append(pictures, others...)
	for i, p := range pictures {
		if p.path == "" {
			continue
		}
		for _, q := range all[i+1:] {
			if q.path != "" && q.path != "-" && samePath(p.path, q.path) {
				return fmt.Errorf("%s and %s both name %s: give each its own file", p.name, q.name, p.path)
			}
		}
	}
	return nil
}

// samePath reports whether two paths name one file: the same path once made absolute, or,
// when both exist, the same file under two names (a link).
func samePath(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}
