package index

import (
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// catalogPrefix is a prefix index over the partition's catalog ids that a
// token can hold (ASCII letters, digits and _ - . : / # @; an id with a
// space or any other byte is never a token, so never a leak the gauntlet
// looks up), built on first use.
type catalogPrefix struct {
	once   sync.Once
	ids    []string // sorted, lower-cased
	parent []int32  // index of the longest id that is a proper prefix of ids[i], or -1
}

func tokenShaped(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '_' || c == '-' || c == '.' || c == ':' || c == '/' || c == '#' || c == '@') {
			return false
		}
	}
	return id != ""
}

func (cp *catalogPrefix) build(catalog map[string]struct{}) {
	for id := range catalog {
		if tokenShaped(id) {
			cp.ids = append(cp.ids, id)
		}
	}
	slices.Sort(cp.ids)
	cp.parent = make([]int32, len(cp.ids))
	var stack []int32 // ids each a prefix of the next
	for i, id := range cp.ids {
		for len(stack) > 0 && !strings.HasPrefix(id, cp.ids[stack[len(stack)-1]]) {
			stack = stack[:len(stack)-1]
		}
		cp.parent[i] = -1
		if len(stack) > 0 {
			cp.parent[i] = stack[len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
}

// related reports whether s (lower-cased) is a prefix of an id or an id is
// a prefix of s.
func (cp *catalogPrefix) related(s string) bool {
	i, _ := slices.BinarySearch(cp.ids, s)
	if i < len(cp.ids) && strings.HasPrefix(cp.ids[i], s) {
		return true
	}
	// An id that is a prefix of s sorts at or before ids[i-1], the largest
	// id below s, and is a prefix of it: it is on ids[i-1]'s parent chain.
	for j := int32(i - 1); j >= 0; j = cp.parent[j] {
		if strings.HasPrefix(s, cp.ids[j]) {
			return true
		}
	}
	return false
}

// CatalogPrefix reports whether s and a real citable id of the partition
// are prefix-related, ignoring case as Contains does: s is a prefix of an
// id, or an id is a prefix of s. Only ids a token can hold are indexed
// (ids with a space, such as "Genesis 1:1", never are). The gauntlet asks
// it to release a token that ends a delta before the next delta shows where
// the token ends (gauntlet.Options.CatalogPrefix). It does not allocate for
// s of up to 64 bytes.
func (p *Partition) CatalogPrefix(s string) bool {
	cp := &p.idPrefix
	cp.once.Do(func() { cp.build(p.catalog) })
	if len(cp.ids) == 0 {
		return false
	}
	var buf [64]byte
	if len(s) > 0 && len(s) <= len(buf) {
		n := 0
		for ; n < len(s); n++ {
			c := s[n]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			} else if c >= 0x80 {
				break
			}
			buf[n] = c
		}
		if n == len(s) {
			return cp.related(unsafe.String(&buf[0], n)) // not retained
		}
	}
	return cp.related(strings.ToLower(s))
}
