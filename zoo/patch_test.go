package zoo

import (
	"strings"
	"testing"
)

const original = `package x

func a() int {
	return 1
}

func b() int {
	return 2
}
`

const twoHunks = `# id: two
# planted: a and b return more
# property: exactly-once
# ground: standard
--- a/x/x.go
+++ b/x/x.go
@@ -3,3 +3,3 @@
 func a() int {
-	return 1
+	return 10
 }
@@ -7,3 +7,4 @@
 func b() int {
-	return 2
+	b := 20
+	return b
 }
`

func TestApplyTwoHunks(t *testing.T) {
	b, err := Parse("two.diff", twoHunks)
	if err != nil {
		t.Fatal(err)
	}
	if b.ID != "two" || b.Flink != "" || b.Ground != "standard" || len(b.Patches) != 1 || b.Patches[0].Path != "x/x.go" || len(b.Patches[0].Hunks) != 2 {
		t.Fatalf("parsed %+v", b)
	}
	got, err := b.Patches[0].Apply(original)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(original, "return 1", "return 10", 1), "\treturn 2\n", "\tb := 20\n\treturn b\n", 1)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestApplyFindsMovedCode: code that moved since the diff was written (lines added above
// it) is found by its context, as patch(1) would.
func TestApplyFindsMovedCode(t *testing.T) {
	b, err := Parse("two.diff", twoHunks)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(original, "package x\n", "package x\n\n// added\n// lines\n", 1)
	got, err := b.Patches[0].Apply(moved)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "return 10") || !strings.Contains(got, "return b") || !strings.Contains(got, "// added") {
		t.Errorf("got\n%s", got)
	}
}

// TestApplyRefusesAStaleDiff: a diff whose context is no longer in the file fails with a
// message that names the file, the hunk and what it looked for.
func TestApplyRefusesAStaleDiff(t *testing.T) {
	b, err := Parse("two.diff", twoHunks)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(original, "return 2", "return 3", 1)
	_, err = b.Patches[0].Apply(changed)
	want := `x/x.go: hunk 2 (@@ -7,3 +7,4 @@, starting "func b() int {") does not apply: the code it expects is not in the file, so the diff is stale; rewrite it against the current source`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestParseRefusesBadFiles(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"unknown key":   {"# idd: x\n", `"# idd: x": a header line is "# KEY: value"`},
		"no ground":     {"# id: x\n# planted: p\n# property: q\n--- a/f\n+++ b/f\n", "the header has no ground"},
		"no diff":       {"# id: x\n# planted: p\n# property: q\n# ground: g\n", "no --- line"},
		"short hunk":    {"# id: x\n# planted: p\n# property: q\n# ground: g\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n", "ends early"},
		"outside":       {"# id: x\n# planted: p\n# property: q\n# ground: g\n--- a/../f\n+++ b/../f\n@@ -1 +1 @@\n-a\n+b\n", "existing files inside the module only"},
		"garbage":       {"# id: x\n# planted: p\n# property: q\n# ground: g\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nhello\n", `"hello" is not part of a unified diff`},
		"bad hunk head": {"# id: x\n# planted: p\n# property: q\n# ground: g\n--- a/f\n+++ b/f\n@@ one @@\n", "is not a hunk header"},
		"absent plants": {"# id: x\n# flink: FLINK-1\n# absent: no such thing\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", "plants nothing"},
		"absent ground": {"# id: x\n# flink: FLINK-1\n# absent: no such thing\n# ground: standard\n", "plants nothing"},
		"absent ours":   {"# id: x\n# flink: -\n# absent: no such thing\n", "flink is -"},
		"absent bare":   {"# id: x\n# absent: no such thing\n", "the header has no flink"},
	} {
		if _, err := Parse(name, tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
}

// TestParseAbsent: a Flink bug without an analogue is a header alone.
func TestParseAbsent(t *testing.T) {
	b, err := Parse("x.diff", "# id: x\n# flink: FLINK-1\n# fix: apache/flink#1\n# absent: ckptsim has no such thing\n")
	if err != nil {
		t.Fatal(err)
	}
	if b.Absent != "ckptsim has no such thing" || b.Fix != "apache/flink#1" || b.Flink != "FLINK-1" || len(b.Patches) != 0 {
		t.Errorf("got %+v", b)
	}
}

// TestApplyRefusesAnAmbiguousMove: a hunk whose place moved and whose lines stand twice in
// the file cannot say which is meant; applied at the nearest, it could plant the bug in
// another function.
func TestApplyRefusesAnAmbiguousMove(t *testing.T) {
	const diff = "# id: amb\n# planted: an error swallowed\n# property: exactly-once\n# ground: standard\n--- a/y.go\n+++ b/y.go\n@@ -2,3 +2,3 @@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n"
	b, err := Parse("amb.diff", diff)
	if err != nil {
		t.Fatal(err)
	}
	src := "package y\n\nfunc f() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n"
	_, err = b.Patches[0].Apply(src)
	if err == nil || !strings.Contains(err.Error(), "stands in 2 places") {
		t.Fatalf("got %v, want the ambiguity named", err)
	}
	// At the line its header names, the same lines apply without doubt.
	at := "package y\n\tif err != nil {\n\t\treturn err\n\t}\n\tif err != nil {\n\t\treturn err\n\t}\n"
	got, err := b.Patches[0].Apply(at)
	if err != nil || !strings.Contains(got, "return nil") {
		t.Fatalf("got %q, %v", got, err)
	}
}
