package memory

// IndexStale says why the derived search index does not describe the
// manifest ("" when it does): missing, of another generation, or left
// behind by a writer that did not finish. Readers then fall back to the
// issue files, so a stale index is slower, never wrong; `verify` reports
// it and `verify --repair` rebuilds the manifest and index together.
func (s *Store) IndexStale() string {
	if s.unfinishedWrites() {
		return "a write did not finish (a crash marker is pending)"
	}
	v := s.openFast()
	if v == nil {
		return "it is missing or does not match manifest.json"
	}
	v.close()
	return ""
}
