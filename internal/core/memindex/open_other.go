//go:build !unix

package memindex

// Open reads the index file.
func Open(path string, verify bool) (*Index, func(), error) { return openRead(path, verify) }
