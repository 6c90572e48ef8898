package retrieve

// CatalogPrefix reports whether s and a real citable id of the partition
// are prefix-related (s is a prefix of an id, or an id of s), ignoring case
// as Contains does; ids no token can hold are left out. It backs
// gauntlet.Options.CatalogPrefix, next to Contains for Options.Catalog.
func (e *Engine) CatalogPrefix(tenant, kb, s string) bool {
	st := e.acquire()
	if st == nil {
		return false
	}
	defer st.release()
	p := st.snap.Partition(tenant, kb)
	return p != nil && p.CatalogPrefix(s)
}
