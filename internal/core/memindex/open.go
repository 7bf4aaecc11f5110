package memindex

import "github.com/agentx-dev/agentx/internal/core/atomicfile"

// openRead reads the whole index file (where mapping is not available).
func openRead(path string, verify bool) (*Index, func(), error) {
	data, err := atomicfile.ReadRegular(path, atomicfile.LimitOf(path))
	if err != nil {
		return nil, nil, err
	}
	ix, err := Decode(data, verify)
	if err != nil {
		return nil, nil, err
	}
	return ix, func() {}, nil
}
