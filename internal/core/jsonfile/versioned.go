package jsonfile

// Versioned is embedded in every --json document the commands print, where
// its key falls in the document's field order: the commands stamp the one
// schema version through SetSchemaVersion, so a core package can own a
// document's shape without owning its version.
type Versioned struct {
	SchemaVersion int `json:"schemaVersion"`
}

// SetSchemaVersion stamps the document's schema version.
func (v *Versioned) SetSchemaVersion(n int) { v.SchemaVersion = n }

// List is s, or an empty list when s is nil: a document's list is [],
// never null.
func List[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
