package sync

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
)

// archiveAbove is how many uncached files make Prefetch download the
// branch's archive rather than read them blob by blob (one API call each).
const archiveAbove = 8

// maxArchive bounds the archive read (the state branch holds ledgers and
// memory, far under it).
const maxArchive = 512 << 20

// Prefetch fills the blob cache with snap's files that keep accepts (nil:
// all), in one API call instead of one per file, when more than
// archiveAbove of them are not cached: GET /repos/{o}/{r}/tarball/{commit}
// answers with a redirect to codeload.github.com, whose download is not an
// API call. A file is kept only when its blob id is the one snap's tree
// names, so what the reads return is what they would have read. It
// returns how many files it cached; a failed archive is no error (the
// reads fall back to the blobs, and Warn, when set, says why).
func (b *StateBranch) Prefetch(ctx context.Context, snap *StateSnapshot, warn func(string, ...any), keep func(path string) bool) int {
	want := map[string]string{} // path -> blob id
	for p, sha := range snap.Blobs {
		if _, cached := b.blobs[sha]; cached || keep != nil && !keep(p) {
			continue
		}
		want[p] = sha
	}
	if len(want) <= archiveAbove || snap.Partial || snap.Commit == "" {
		return 0
	}
	n, err := b.prefetch(ctx, snap.Commit, want)
	if err != nil && warn != nil {
		warn("reading %s's files one by one (%d API calls): its archive failed: %v", b.Branch, len(want)-n, err)
	}
	return n
}

func (b *StateBranch) prefetch(ctx context.Context, commit string, want map[string]string) (int, error) {
	// GET /repos/{owner}/{repo}/tarball/{commit}: 302 to codeload
	u, resp, err := b.GH.gh.Repositories.GetArchiveLink(rl(ctx), b.GH.owner, b.GH.repo, github.Tarball,
		&github.RepositoryContentGetOptions{Ref: commit}, 0)
	if err != nil {
		return 0, wrap("archive link", resp, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	// Through the retrying transport, without the token: the link is
	// signed for this download.
	dl, err := (&http.Client{Transport: b.GH.Transport}).Do(req)
	if err != nil {
		return 0, fmt.Errorf("download the archive: %w", err)
	}
	defer func() { _ = dl.Body.Close() }() // read-only
	if dl.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("download the archive: HTTP %d", dl.StatusCode)
	}
	zr, err := gzip.NewReader(io.LimitReader(dl.Body, maxArchive))
	if err != nil {
		return 0, fmt.Errorf("read the archive: %w", err)
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("read the archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		// owner-repo-sha/path: the first component is the archive's.
		_, p, ok := strings.Cut(h.Name, "/")
		sha, wanted := want[p]
		if !ok || !wanted || h.Size > maxArchive {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return n, fmt.Errorf("read the archive: %w", err)
		}
		if blobSHA(data) == sha { // what the tree names, byte for byte
			b.blobs[sha] = data
			n++
		}
	}
}
