package engine

// testKind is a JobKind for the engine's own tests: its tasks make records under
// "<task>:", as engine/tokens' processes do. Its coordinator and tasks are never built.
type testKind struct{}

func (testKind) Kind() string               { return "test" }
func (testKind) Validate(*Operator) error   { return nil }
func (testKind) Channels() [][2]int         { return nil }
func (testKind) NewTask(*TaskHost) KindTask { panic("testKind runs no task") }
func (testKind) NewCoordinator(*CoordinatorHost) KindCoordinator {
	panic("testKind runs no coordinator")
}
func (testKind) Reference(*Operator) (*Reference, error) { return &Reference{}, nil }
func (testKind) Origins(op *Operator) []string {
	var out []string
	for i := 0; i < op.Parallelism; i++ {
		out = append(out, TaskID(op.Name, i)+":")
	}
	return out
}

// classedMessage is a JobKind's message that says its class.
type classedMessage struct{}

func (classedMessage) MessageClass() MessageClass { return ClassTokens }
