//go:build !unix

package memory

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// rowFile is an issue file opened to read rows at their offsets.
type rowFile struct {
	f    *os.File
	stat FileStat // none here (OK false): the anchors' check stats the file
}

func openRowFile(path string) *rowFile {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil
	}
	return &rowFile{f: f}
}

// readAt reads len(buf) bytes at off, fewer only where the file ends.
func (f *rowFile) readAt(buf []byte, off int64) (int, error) {
	k, err := f.f.ReadAt(buf, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return k, err
}

func (f *rowFile) close() { _ = f.f.Close() } // read-only

// rowDir opens issue files by path here.
type rowDir struct{}

func (d *rowDir) openIssue(dir, name string) *rowFile {
	return openRowFile(filepath.Join(dir, name))
}

func (d *rowDir) close() {}

// readSmall is atomicfile.ReadRegular here.
func readSmall(path string, limit int64) ([]byte, error) { return atomicfile.ReadRegular(path, limit) }
