package judge

import (
	"crypto/sha256"
	"encoding/hex"
)

// LocalModelChecksum is the sha256 (hex) of the embedded local verifier
// model file (localmodel.json), for guard --version.
func LocalModelChecksum() string {
	sum := sha256.Sum256(localModelJSON)
	return hex.EncodeToString(sum[:])
}
