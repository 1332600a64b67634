package mutate

import (
	"go/ast"
	"go/token"
)

// deletions deletes each statement of a list that can go without breaking the syntax: an
// expression (a call), an assignment that declares nothing, an increment, a return. A
// deletion that leaves a variable unused or a function without its return fails to
// compile; the runner discards those, so the walker only skips the sure failures.
func (w *walker) deletions(list []ast.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt, *ast.IncDecStmt:
			w.add(s.Pos(), s.End(), "delete", "")
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				w.add(s.Pos(), s.End(), "delete", "")
			}
		case *ast.ReturnStmt:
			if !w.terminal[s] {
				w.add(s.Pos(), s.End(), "delete", "")
			}
		}
	}
}

// skipTerminalReturn marks the return that ends a function body: deleting it leaves a
// function that returns nothing where it must, or changes nothing where it need not.
func (w *walker) skipTerminalReturn(body *ast.BlockStmt) {
	if body == nil || len(body.List) == 0 {
		return
	}
	if r, ok := body.List[len(body.List)-1].(*ast.ReturnStmt); ok {
		if w.terminal == nil {
			w.terminal = map[*ast.ReturnStmt]bool{}
		}
		w.terminal[r] = true
	}
}
