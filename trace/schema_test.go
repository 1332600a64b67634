package trace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestKindsListsEveryKindConstant keeps Kinds in step with the Kind* constants, so a kind
// added to the schema is at once accepted by every tool that validates kinds.
func TestKindsListsEveryKindConstant(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "schema.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(file, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if strings.HasPrefix(name.Name, "Kind") && i < len(spec.Values) {
				if lit, ok := spec.Values[i].(*ast.BasicLit); ok {
					value, _ := strconv.Unquote(lit.Value)
					declared = append(declared, value)
				}
			}
		}
		return true
	})
	if len(declared) < 20 {
		t.Fatalf("found only %d Kind constants; is the parse wrong?", len(declared))
	}
	slices.Sort(declared)
	listed := Kinds()
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Fatalf("Kinds() = %v\nconstants = %v", listed, declared)
	}
	if !IsKind(KindSnapshotAck) || IsKind("snapshot.ak") {
		t.Fatal("IsKind disagrees with the list")
	}
}

// TestEveryKindHasFields keeps the field table in step with the kinds, so a kind added to the
// schema says what it carries before any trace can use it.
func TestEveryKindHasFields(t *testing.T) {
	for _, kind := range Kinds() {
		if _, ok := FieldsOf(kind); !ok {
			t.Errorf("kind %s has no entry in fieldsByKind", kind)
		}
	}
	if len(fieldsByKind) != len(Kinds()) {
		t.Errorf("fieldsByKind has %d kinds, the schema %d", len(fieldsByKind), len(Kinds()))
	}
	taken, _ := FieldsOf(KindSnapshotTaken)
	if !taken.Allows("sent.sum-0") || taken.Allows("sent.") || taken.Allows("snet.sum-0") {
		t.Error("snapshot.taken's prefixes allow the wrong keys")
	}
}
