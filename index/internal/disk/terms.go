package disk

// Terms is terms.gob: every chunk's stemmed terms as vocabulary ids (title
// terms first), so that query-time scoring never re-tokenises chunk text.
type Terms struct {
	Offsets  []uint32 // chunk i's ids are IDs[Offsets[i]:Offsets[i+1]]
	IDs      []uint32
	TitleLen []uint32 // leading ids of a chunk that come from its title
	Norm     []float32
}

// termFile is Terms under the name its gob stream carries.
type termFile Terms

// Chunk returns chunk i's term ids.
func (t *Terms) Chunk(i int) []uint32 { return t.IDs[t.Offsets[i]:t.Offsets[i+1]] }

// WriteTerms writes t to path.
func WriteTerms(path string, t *Terms) error { return WriteGob(path, (*termFile)(t)) }

// ReadTerms reads the terms file at path into t.
func ReadTerms(path string, t *Terms) error { return ReadGob(path, (*termFile)(t)) }
