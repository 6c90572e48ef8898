package index

// slotIndex maps a key to the chunk slots it names. Most keys name one slot
// (a chunk id, a single-chunk document, one verse's address), so the slot is
// kept in the map value itself; a key with more slots keeps -(k+1), k an
// index into multi. A map of one-element slices cost a slice header and a
// small allocation per key: 23.7 MiB of id and address maps per 100k chunks
// before (BenchmarkMemoryBreakdown100k).
type slotIndex struct {
	one   map[string]int32
	multi [][]int32
}

func newSlotIndex(n int) slotIndex { return slotIndex{one: make(map[string]int32, n)} }

// add appends slot to key's slots.
func (s *slotIndex) add(key string, slot int32) {
	v, ok := s.one[key]
	switch {
	case !ok:
		s.one[key] = slot
	case v >= 0:
		s.one[key] = int32(-(len(s.multi) + 1))
		s.multi = append(s.multi, []int32{v, slot})
	default:
		s.multi[-v-1] = append(s.multi[-v-1], slot)
	}
}

// get returns key's slots (nil when none). The result must not be modified.
func (s *slotIndex) get(key string) []int32 {
	v, ok := s.one[key]
	switch {
	case !ok:
		return nil
	case v >= 0:
		return []int32{v}
	default:
		return s.multi[-v-1]
	}
}

// len is the number of keys.
func (s *slotIndex) len() int { return len(s.one) }
