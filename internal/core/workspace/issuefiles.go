package workspace

import (
	"errors"
	"io/fs"
	"os"
	"sort"
)

// IssueFiles lists the issues of the per-issue files in dir (`issue-N.json`,
// read by name, which says what N a name holds), ascending. A missing dir
// holds none. The clarification and artifact ledgers share this layout.
func IssueFiles(dir string, name func(string) (int, bool)) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(entries))
	for _, e := range entries {
		if n, ok := name(e.Name()); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}
