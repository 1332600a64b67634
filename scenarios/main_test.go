package scenarios

import (
	"testing"

	"github.com/ckptsim/ckptsim/internal/rapidtest"
)

func TestMain(m *testing.M) { rapidtest.MainPinned(m) }
