//go:build !unix

package memindex

// Open reads the index file.
func Open(path string, verify bool) (*Index, func(), error) { return openRead(path, verify) }

// fileKey is an open file's identity; none here: Maps keeps nothing.
type fileKey struct{ ok bool }

func openKeyed(path string, _ func(fileKey) (*Index, bool)) (*Index, func(), fileKey, error) {
	ix, closeFn, err := openRead(path, false)
	return ix, closeFn, fileKey{}, err
}

// statKey tells no identity here.
func statKey(string) (fileKey, bool) { return fileKey{}, false }
