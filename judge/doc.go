// Package judge implements claim splitting, the citation verifiers (local NLI,
// LLM with ChainPoll), the uncited-claim flagger and the trust report.
package judge
