// Package retrieve implements the retrieval lanes (dense, lexical, address,
// curated memory), the candidate pool, reranking and the final top-k with
// per-kind reserves.
package retrieve
