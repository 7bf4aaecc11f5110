//go:build unix

package statesafety

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// openStore opens the object and ref storage of the git directory dir
// (go-git's storage layer, as agentx itself uses it).
func openStore(dir string) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRUDefault(), filesystem.Options{})
}

// isStateFile says whether rel (relative to .agentx/, slash-separated) is
// a file the state branch carries: a ledger, a memory issue file or a
// memory archive.
func isStateFile(rel string) bool {
	dir, name := path.Split(rel)
	if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
		return false
	}
	switch dir {
	case "state/clarifications/", "memory/":
		return strings.HasPrefix(name, "issue-")
	case "memory/archive/":
		return true
	}
	return false
}

// localFiles reads the state files under tree dir's .agentx/.
func localFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	root := filepath.Join(dir, ".agentx")
	for _, sub := range []string{"state/clarifications", "memory", "memory/archive"} {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(sub)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			rel := sub + "/" + e.Name()
			if e.IsDir() || !isStateFile(rel) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[rel] = data
		}
	}
	return out, nil
}

// refHoldings is what the commit ref points at in repo holds (that of no
// files when the ref does not exist). A commit's content never changes, so
// what one was found to hold is kept by its hash: after each step most
// refs still point where they did.
func (w *world) refHoldings(repo *filesystem.Storage, ref string) (*holdings, error) {
	r, err := storer.ResolveReference(repo, plumbing.ReferenceName(ref))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return hold(nil), nil
	}
	if err != nil {
		return hold(nil), fmt.Errorf("ref %s: %w", ref, err)
	}
	if h, ok := w.commits[r.Hash()]; ok {
		return h, nil
	}
	files, err := commitFiles(repo, r.Hash())
	if err != nil {
		return hold(nil), fmt.Errorf("ref %s: %w", ref, err)
	}
	h := hold(files)
	if w.commits == nil {
		w.commits = map[plumbing.Hash]*holdings{}
	}
	w.commits[r.Hash()] = h
	return h, nil
}

// commitFiles reads the state files of commit id in repo.
func commitFiles(repo *filesystem.Storage, id plumbing.Hash) (map[string][]byte, error) {
	c, err := object.GetCommit(repo, id)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", id, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	err = tree.Files().ForEach(func(f *object.File) error {
		if !isStateFile(f.Name) {
			return nil
		}
		rd, err := f.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		data, err := io.ReadAll(rd)
		out[f.Name] = data
		return err
	})
	return out, err
}

// worktreeBaseRef is the sync base of the linked worktree w: its name and
// the id agentx keeps in its private git directory ("" before its first
// sync).
func (w *world) worktreeBaseRef() string {
	data, err := os.ReadFile(filepath.Join(w.tree("a"), ".git", "worktrees", "w", "agentx-worktree-id"))
	if err != nil {
		return ""
	}
	return "refs/agentx/worktrees/w-" + strings.TrimSpace(string(data)) + "/synced"
}

// places reads every place that holds shared state: each work tree's
// local files ("local a"), each work tree's sync base ("base a"), and the
// remote's state branches ("branch agentx/state"). A ref that cannot be
// read holds nothing and is named in problems.
func (w *world) places() (hs map[string]*holdings, problems []string, err error) {
	out := map[string]*holdings{}
	repos := map[string]*filesystem.Storage{}
	open := func(p string) (*filesystem.Storage, error) {
		if r, ok := repos[p]; ok {
			return r, nil
		}
		if _, err := os.Stat(filepath.Join(p, "objects")); err != nil {
			return nil, fmt.Errorf("open %s: %w", p, err)
		}
		r := openStore(p)
		repos[p] = r
		return r, nil
	}
	names := make([]string, 0, len(w.trees))
	for n := range w.trees {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		files, err := localFiles(w.tree(n))
		if err != nil {
			return nil, nil, err
		}
		out["local "+n] = hold(files)
		repo, err := open(filepath.Join(w.tree(repoOf(n)), ".git"))
		if err != nil {
			return nil, nil, err
		}
		ref := "refs/agentx/synced"
		if n == "w" {
			ref = w.worktreeBaseRef()
		}
		if ref == "" {
			out["base "+n] = hold(nil)
			continue
		}
		h, err := w.refHoldings(repo, ref)
		if err != nil {
			problems = append(problems, fmt.Sprintf("the sync base of %s cannot be read: %v", n, err))
		}
		out["base "+n] = h
	}
	remote, err := open(w.remote)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range []string{stateBranch, altBranch} {
		h, err := w.refHoldings(remote, "refs/heads/"+b)
		if err != nil {
			problems = append(problems, fmt.Sprintf("the remote's %s cannot be read: %v", b, err))
		}
		out["branch "+b] = h
	}
	return out, problems, nil
}

// holdings is what one place holds, by the unique texts the model gave
// what it created.
type holdings struct {
	files     map[string][]byte
	questions map[string]int  // a record's question -> records holding it
	entries   map[string]bool // thread entry bodies
	obsIDs    map[string]bool // live observations
	obsText   []string        // their contents
	obsByID   map[string]string
	archived  map[string]bool // observations in an archive
	// dupIDs names clarification ids held by more than one record of a
	// ledger, and questions held by more than one record.
	dupIDs []string
}

type ledgerDoc struct {
	Clarifications []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Thread []struct {
			Body string `json:"body"`
		} `json:"thread"`
	} `json:"clarifications"`
}

type memoryDoc struct {
	Observations []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	} `json:"observations"`
}

// hold indexes files; a file that does not parse holds nothing.
func hold(files map[string][]byte) *holdings {
	h := &holdings{files: files, questions: map[string]int{}, entries: map[string]bool{},
		obsIDs: map[string]bool{}, archived: map[string]bool{}, obsByID: map[string]string{}}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		data := files[p]
		switch {
		case strings.HasPrefix(p, "state/clarifications/"):
			var d ledgerDoc
			if json.Unmarshal(data, &d) != nil {
				continue
			}
			ids := map[string]int{}
			qs := map[string]int{}
			for _, r := range d.Clarifications {
				ids[r.ID]++
				for i, e := range r.Thread {
					if i == 0 {
						qs[e.Body]++
						h.questions[e.Body]++
					}
					h.entries[e.Body] = true
				}
			}
			for id, n := range ids {
				if n > 1 {
					h.dupIDs = append(h.dupIDs, fmt.Sprintf("%s: id %s held by %d records", p, id, n))
				}
			}
			for q, n := range qs {
				if n > 1 {
					h.dupIDs = append(h.dupIDs, fmt.Sprintf("%s: question %q held by %d records", p, q, n))
				}
			}
		case strings.HasPrefix(p, "memory/archive/"):
			var d memoryDoc
			if json.Unmarshal(data, &d) != nil {
				continue
			}
			for _, o := range d.Observations {
				h.archived[o.ID] = true
			}
		default:
			var d memoryDoc
			if json.Unmarshal(data, &d) != nil {
				continue
			}
			for _, o := range d.Observations {
				h.obsIDs[o.ID] = true
				h.obsText = append(h.obsText, o.Content)
				h.obsByID[o.ID] = o.Content
			}
		}
	}
	sort.Strings(h.dupIDs)
	return h
}

// item is one acknowledged thing the model expects to survive.
type item struct {
	kind  string // "record" (by its question), "entry" (an answer or resolution), "observation"
	text  string
	id    string // the observation's id; the record's id when it was acknowledged
	issue int
	tree  string // where it was acknowledged
	op    int    // by which step (1-based)
	// gone says why the item may be gone ("" while it must survive).
	gone string
}

func (it *item) String() string {
	s := fmt.Sprintf("%s %q", it.kind, it.text)
	if it.id != "" {
		s += " (" + it.id + ")"
	}
	s = fmt.Sprintf("%s of issue %d, acknowledged in %s", s, it.issue, it.tree)
	if it.op > 0 {
		s += fmt.Sprintf(" at step %d", it.op)
	}
	return s
}

// holds says whether h holds it: a record or entry by its text; an
// observation by its id, or (compacted) by its id in an archive or its
// text in a live observation (the summary that took it).
func (h *holdings) holds(it *item) bool {
	switch it.kind {
	case "record":
		return h.questions[it.text] > 0
	case "entry":
		return h.entries[it.text]
	}
	if h.obsIDs[it.id] || h.archived[it.id] {
		return true
	}
	for _, c := range h.obsText {
		if strings.Contains(c, it.text) {
			return true
		}
	}
	return false
}

// where lists the places of hs holding it.
func where(hs map[string]*holdings, it *item) []string {
	var out []string
	for name, h := range hs {
		if h.holds(it) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// userState is what no sync may touch in a work tree: HEAD, the
// branches, tags and stash, the index and the files outside .agentx/ and
// .git, and what git status says of them.
func userState(dir string) (string, error) {
	var b strings.Builder
	gitDir := filepath.Join(dir, ".git")
	if data, err := os.ReadFile(gitDir); err == nil {
		gitDir = strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir:"))
	}
	commonDir := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = filepath.Join(gitDir, strings.TrimSpace(string(data)))
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "HEAD %s", head)
	// Listed as git lists them (gitstore.Refs): go-git's iterator fails on
	// the empty NAME.lock a sync killed mid-update leaves under refs/.
	repo, err := gitstore.Open(dir)
	if err != nil {
		return "", err
	}
	refs, err := repo.Refs("refs/heads/", "refs/tags/", "refs/stash")
	if err != nil {
		return "", err
	}
	var names []string
	for n, h := range refs {
		if n == "refs/stash" || !strings.HasPrefix(n, "refs/stash") {
			names = append(names, h.String()+" "+n)
		}
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "refs %s\n", strings.Join(names, "; "))
	idx, err := openStore(gitDir).Index()
	if err != nil {
		return "", err
	}
	for _, e := range idx.Entries {
		if !strings.HasPrefix(e.Name, ".agentx/") {
			fmt.Fprintf(&b, "index %s %s %s\n", e.Mode, e.Hash, e.Name)
		}
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (rel == ".git" || rel == ".agentx") {
			return filepath.SkipDir
		}
		if d.IsDir() || rel == ".git" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "file %x %s\n", sha256.Sum256(data), rel)
		return nil
	})
	if err != nil {
		return "", err
	}
	status, err := mustGit(dir, "status", "--porcelain", "-uall")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(status, "\n") {
		if !strings.Contains(line, ".agentx/") {
			fmt.Fprintf(&b, "status %s\n", line)
		}
	}
	// git stash list is this reflog.
	stash, err := os.ReadFile(filepath.Join(commonDir, "logs", "refs", "stash"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	fmt.Fprintf(&b, "stash %s\n", stash)
	return b.String(), nil
}
