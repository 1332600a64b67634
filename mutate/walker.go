package mutate

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
)

// walker collects the mutants of one parsed file.
type walker struct {
	fset    *token.FileSet
	src     []byte
	file    string
	pkg     string
	mutants []*Mutant
	// terminal marks the returns that end a function body: never deleted.
	terminal map[*ast.ReturnStmt]bool
}

// swaps is the operator each binary operator is swapped for: each comparison for its
// neighbour across the boundary or its negation, + for -, && for ||. Each is one
// character of difference in the source, the slip a mutant stands for.
var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.ADD: token.SUB, token.SUB: token.ADD,
	token.LAND: token.LOR, token.LOR: token.LAND,
	token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
}

func (w *walker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		w.swap(n.OpPos, n.Op)
	case *ast.AssignStmt:
		w.swap(n.TokPos, n.Tok)
	case *ast.IfStmt:
		w.condition(n.Cond)
	case *ast.ForStmt:
		if n.Cond != nil {
			w.condition(n.Cond)
		}
	case *ast.BasicLit:
		w.constant(n)
	case *ast.BlockStmt:
		w.deletions(n.List)
	case *ast.CaseClause:
		w.deletions(n.Body)
	case *ast.CommClause:
		w.deletions(n.Body)
	case *ast.FuncDecl:
		w.skipTerminalReturn(n.Body)
	case *ast.FuncLit:
		w.skipTerminalReturn(n.Body)
	}
	return true
}

// add records the mutant that replaces the source between from and to with replacement.
func (w *walker) add(from, to token.Pos, operator, replacement string) {
	start, end := w.fset.Position(from), w.fset.Position(to)
	w.mutants = append(w.mutants, &Mutant{
		ID:          fmt.Sprintf("%s:%d:%d:%s", w.file, start.Line, start.Column, operator),
		Package:     w.pkg,
		File:        w.file,
		Line:        start.Line,
		Column:      start.Column,
		Operator:    operator,
		Original:    string(w.src[start.Offset:end.Offset]),
		Replacement: replacement,
		Start:       start.Offset,
		End:         end.Offset,
	})
}

func (w *walker) swap(pos token.Pos, op token.Token) {
	if to, ok := swaps[op]; ok {
		w.add(pos, pos+token.Pos(len(op.String())), "swap"+to.String(), to.String())
	}
}

// condition negates an if's or a for's condition and replaces it by each constant.
func (w *walker) condition(cond ast.Expr) {
	text := string(w.src[w.fset.Position(cond.Pos()).Offset:w.fset.Position(cond.End()).Offset])
	w.add(cond.Pos(), cond.End(), "negate", "!("+text+")")
	w.add(cond.Pos(), cond.End(), "true", "true")
	w.add(cond.Pos(), cond.End(), "false", "false")
}

// constant moves an integer literal by one each way and to zero. A literal that is zero
// already only grows: -1 would not compile where the type is unsigned.
func (w *walker) constant(lit *ast.BasicLit) {
	if lit.Kind != token.INT {
		return
	}
	value, err := strconv.ParseInt(lit.Value, 0, 64)
	if err != nil || value == 1<<63-1 {
		return
	}
	w.add(lit.Pos(), lit.End(), "const+1", strconv.FormatInt(value+1, 10))
	if value > 0 {
		w.add(lit.Pos(), lit.End(), "const-1", strconv.FormatInt(value-1, 10))
		w.add(lit.Pos(), lit.End(), "const0", "0")
	}
}
