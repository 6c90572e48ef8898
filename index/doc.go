// Package index implements corpus ingest, chunking, embedders and the
// immutable on-disk snapshot (HNSW graph, Bleve index, address table,
// catalog, curated memory) that retrieval reads.
package index
