// Package disk implements the on-disk layout and encodings of an index
// snapshot: which file holds what, the format version, and how each file is
// written and read. Only package index imports it; nothing outside index
// reads snapshot files.
//
// A snapshot is an immutable directory:
//
//	manifest.json            the Manifest of package index (JSON), Format = FormatVersion
//	answer_calibration.json  per-partition answerability calibrations (JSON, optional)
//	parts/TENANT/KB/         one directory per partition (PartDir):
//	  chunks.gob             chunk slots and tombstones (gob of index's chunkFile)
//	  local.gob              the fitted local model (gob of index.LocalModel)
//	  terms.gob              every chunk's term ids (gob, Terms)
//	  local.f32, remote.f32  vectors, little-endian float32, slot-major (WriteF32, MapF32)
//	  hnsw.bin               HNSW graph over the primary vectors in coder/hnsw's Export format (ReadGraph)
//	  bleve/                 the Bleve lexical index
//	  address.json           address table and aliases (JSON, Address)
//	  catalog.txt            every citable chunk and document id, sorted, one a line
//	  memory.jsonl           curated memory, one entry a line
//	  halugate.json          HaluGate's records of derived entries (JSON, optional)
//
// Gob streams carry the names of the encoded types ("chunkFile",
// "[]index.Chunk", "LocalModel", "termFile"), so the types behind them keep
// their names and packages: the chunk and model types stay in package index,
// and Terms is written through a type named termFile. A change to any file's
// encoding must raise FormatVersion.
package disk

import "path/filepath"

// FormatVersion is the snapshot format written in the manifest; a snapshot
// of another format is refused.
const FormatVersion = 1

// Files of a snapshot directory.
const (
	ManifestFile          = "manifest.json"
	AnswerCalibrationFile = "answer_calibration.json"
)

// Files of a partition directory.
const (
	ChunksFile        = "chunks.gob"
	LocalModelFile    = "local.gob"
	TermsFile         = "terms.gob"
	LocalVectorsFile  = "local.f32"
	RemoteVectorsFile = "remote.f32"
	// EncoderVectorsFile holds the embedded encoder's vectors (embedder
	// "use"); a snapshot without the file is hashed or remote. Adding it
	// kept FormatVersion: older snapshots read as before.
	EncoderVectorsFile = "encoder.f32"
	GraphFile          = "hnsw.bin"
	BleveDir           = "bleve"
	AddressFile        = "address.json"
	CatalogFile        = "catalog.txt"
	MemoryFile         = "memory.jsonl"
	HaluGateFile       = "halugate.json"
)

// PartDir is the directory of the (tenant, kb) partition, relative to the
// snapshot directory.
func PartDir(tenant, kb string) string { return filepath.Join("parts", tenant, kb) }
