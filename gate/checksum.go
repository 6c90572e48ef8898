package gate

import (
	"crypto/sha256"
	"encoding/hex"
)

// AnswerModelChecksum is the sha256 (hex) of the embedded answerability
// model file (answermodel.json), for guard --version.
func AnswerModelChecksum() string {
	sum := sha256.Sum256(answerModelJSON)
	return hex.EncodeToString(sum[:])
}
