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

// RelevanceModelChecksum is the sha256 (hex) of the embedded relevance
// model file (relevancemodel.json), for guard --version.
func RelevanceModelChecksum() string {
	sum := sha256.Sum256(relevanceModelJSON)
	return hex.EncodeToString(sum[:])
}
