package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// artifactFile is an artifact as it is written: its fields, then the digest of them.
type artifactFile struct {
	Artifact
	// Digest is SHA-256 over the compact JSON of the artifact's fields, in hex. It is not a
	// signature, only a seal: whoever edits an artifact by hand, or a disk that flips a bit in
	// a value that stays valid, would otherwise make replay compare a run with a record of a
	// different run, and report nondeterminism where there is none.
	Digest string `json:"digest"`
}

// digest returns the digest of a's fields as they stand.
func (a *Artifact) digest() string {
	data, err := json.Marshal(a)
	if err != nil {
		panic(fmt.Sprintf("scenarios: marshalling artifact: %v", err))
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// checkDigest compares the digest a file records with the one its fields give.
func checkDigest(recorded, computed string) error {
	switch {
	case recorded == "":
		return errors.New("artifact.digest: is required")
	case recorded != computed:
		return errors.New("artifact.digest: does not match the artifact's content, which was changed after it was " +
			"written; an artifact records one run as it happened (to run a changed case, put its scenario " +
			"into a scenario file and use simrun run)")
	}
	return nil
}
