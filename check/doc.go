// Package check implements the citation audit of a Markdown document
// against the corpus (`guard check`): it finds the sentences of a document
// and the citations they carry (footnotes, numbered references, links that
// name a corpus document), resolves every citation to corpus passages
// through the index catalog, verifies each cited claim with the judge, looks
// uncited factual sentences up in the corpus, and reports findings as text,
// JSON or GitHub workflow annotations.
//
// It orchestrates index, retrieve, judge and gauntlet the way proxy does for
// chat turns, but for one document at a time and without any HTTP.
package check
