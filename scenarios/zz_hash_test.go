package scenarios

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

func TestSpaceDrawHash(t *testing.T) {
	h := sha256.New()
	for seed := uint64(1); seed <= 3000; seed++ {
		h.Write(Marshal(Generate(seed)))
	}
	fmt.Printf("drawhash %x\n", h.Sum(nil)[:8])
}
