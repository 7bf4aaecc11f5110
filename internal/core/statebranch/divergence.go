package statebranch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
)

// ancestryLimit bounds the commits read to tell whether the remote tip
// descends from the last synchronised one. Past it the answer is "not
// known" and nothing is said: the merge is a union either way, the
// answer only chooses the message.
const ancestryLimit = 20000

// divergence compares the remote tip with the last synchronised base:
// nil when the remote history extends the one this clone knows.
func (s *syncer) divergence(baseTip, theirsTip gitstore.Hash) *Divergence {
	if baseTip.IsZero() {
		return nil
	}
	base := s.syncedCommit(baseTip)
	if theirsTip.IsZero() {
		return &Divergence{Reason: "gone", Base: base.String(), Kept: []string{}}
	}
	if descends, known := s.descends(theirsTip, base); descends || !known {
		return nil
	}
	return &Divergence{Reason: "rewritten", Base: base.String(), Tip: theirsTip.String(), Kept: []string{}}
}

// syncedCommit is the branch commit a base stands for: the base itself,
// or, for a local merge base (files that could not be merged keep their
// old base), the branch commit it was made on.
func (s *syncer) syncedCommit(h gitstore.Hash) gitstore.Hash {
	c, err := s.r.ReadCommit(h)
	if err == nil && strings.HasPrefix(c.Message, localBaseMessage) && len(c.Parents) == 1 {
		return c.Parents[0]
	}
	return h
}

// descends reports whether commit anc is tip or one of its ancestors;
// known is false when the walk hit ancestryLimit or a missing object.
func (s *syncer) descends(tip, anc gitstore.Hash) (descends, known bool) {
	seen := map[gitstore.Hash]bool{tip: true}
	queue := []gitstore.Hash{tip}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == anc {
			return true, true
		}
		if len(seen) > ancestryLimit {
			return false, false
		}
		c, err := s.r.ReadCommit(h)
		if err != nil {
			return false, false
		}
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, true
}

// keptFiles lists the state paths whose entry in next differs from the
// remote's: what a union put back or extended.
func keptFiles(theirs, next map[string]gitstore.Entry, owned func(string) bool) []string {
	out := []string{}
	for p, e := range next {
		if t, ok := theirs[p]; owned(p) && (!ok || t.Hash != e.Hash) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// worktreeIDFile holds, in a linked worktree's private git directory, the
// id that names its sync base.
const worktreeIDFile = "agentx-worktree-id"

// worktreeID reads (or makes) the id of the linked worktree whose private
// git directory is gitDir.
func worktreeID(gitDir string) (string, error) {
	p := filepath.Join(gitDir, worktreeIDFile)
	data, err := os.ReadFile(p)
	if err == nil {
		if id := strings.TrimSpace(string(data)); validID(id) {
			return id, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("worktree id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	// Only under the repository's sync lock: one first sync writes it.
	if err := atomicfile.Write(p, []byte(id+"\n"), atomicfile.Options{}); err != nil {
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return id, nil
}

func validID(id string) bool {
	if len(id) != 12 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}
