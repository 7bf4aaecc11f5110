package githubfake

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The Git Data API (refs, commits, trees, blobs), which GitHub Mode uses to
// keep its state on a branch without a checkout. Objects are hashed exactly
// as git hashes them, so a test can compare the fake's trees with a real
// repository's, and ref updates refuse a non-fast-forward move with 422 as
// GitHub does ("Update is not a fast forward").

// gitTreeEntry is one entry of a stored tree (one level, as git stores it).
type gitTreeEntry struct {
	Name string
	Mode string // "100644" or "040000"
	Type string // "blob" or "tree"
	SHA  string
}

type gitCommit struct {
	Tree    string
	Parents []string
	Message string
}

// gitData is the fake's object database and refs. It lives beside the
// contents API's files: the two are separate stores, as the state branch
// and the default branch are separate in a real repository.
type gitData struct {
	blobs     map[string][]byte
	trees     map[string][]gitTreeEntry
	commits   map[string]gitCommit
	refs      map[string]string // "heads/agentx/state" -> commit sha
	protected map[string]bool   // "heads/x" refuses every update
}

func newGitData() *gitData {
	return &gitData{blobs: map[string][]byte{}, trees: map[string][]gitTreeEntry{}, commits: map[string]gitCommit{},
		refs: map[string]string{}, protected: map[string]bool{}}
}

func (s *Server) git() *gitData {
	if s.gitdata == nil {
		s.gitdata = newGitData()
	}
	return s.gitdata
}

func (s *Server) addGitRoutes(add func(string, handler)) {
	add("GET /repos/{owner}/{repo}/branches/{branch...}", s.getBranch)
	add("GET /repos/{owner}/{repo}/git/ref/{ref...}", s.getRef)
	add("POST /repos/{owner}/{repo}/git/refs", s.createRef)
	add("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", s.updateRef)
	add("GET /repos/{owner}/{repo}/git/commits/{sha}", s.getCommit)
	add("POST /repos/{owner}/{repo}/git/commits", s.createCommit)
	add("GET /repos/{owner}/{repo}/git/trees/{sha}", s.getTree)
	add("POST /repos/{owner}/{repo}/git/trees", s.createTree)
	add("GET /repos/{owner}/{repo}/git/blobs/{sha}", s.getBlob)
	add("POST /repos/{owner}/{repo}/git/blobs", s.createBlob)
}

// ProtectBranch makes every update of branch fail as a protected branch's
// does.
func (s *Server) ProtectBranch(branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git().protected["heads/"+branch] = true
}

// BranchFiles returns the files on branch's tip by path (nil when the
// branch does not exist).
func (s *Server) BranchFiles(branch string) map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.git()
	tip, ok := g.refs["heads/"+branch]
	if !ok {
		return nil
	}
	out := map[string][]byte{}
	g.walk(g.commits[tip].Tree, "", func(path string, e gitTreeEntry) {
		if e.Type == "blob" {
			out[path] = append([]byte(nil), g.blobs[e.SHA]...)
		}
	})
	return out
}

// BranchCommits returns the number of commits reachable from branch's tip
// along first parents.
func (s *Server) BranchCommits(branch string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.git()
	n := 0
	for sha := g.refs["heads/"+branch]; sha != ""; n++ {
		c := g.commits[sha]
		if len(c.Parents) == 0 {
			return n + 1
		}
		sha = c.Parents[0]
	}
	return n
}

// SetBranchFiles commits files (path -> content) as the new tip of branch,
// on top of its current tip: a test seeds state, or plays another writer.
func (s *Server) SetBranchFiles(branch string, files map[string][]byte, message string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.git()
	blobs := make(map[string]string, len(files))
	for p, c := range files {
		blobs[p] = g.putBlob(c)
	}
	tree := g.putFiles(blobs)
	var parents []string
	if tip, ok := g.refs["heads/"+branch]; ok {
		parents = []string{tip}
	}
	sha := g.putCommit(gitCommit{Tree: tree, Parents: parents, Message: message})
	g.refs["heads/"+branch] = sha
	return sha
}

// putFiles stores the nested trees of files (slash path -> blob id) and
// returns the root tree's id.
func (g *gitData) putFiles(files map[string]string) string {
	root := map[string]any{}
	for p, sha := range files {
		parts := strings.Split(p, "/")
		dir := root
		for _, d := range parts[:len(parts)-1] {
			sub, ok := dir[d].(map[string]any)
			if !ok {
				sub = map[string]any{}
				dir[d] = sub
			}
			dir = sub
		}
		dir[parts[len(parts)-1]] = sha
	}
	return g.putNested(root)
}

func (g *gitData) putNested(dir map[string]any) string {
	var entries []gitTreeEntry
	for name, v := range dir {
		switch v := v.(type) {
		case string:
			entries = append(entries, gitTreeEntry{Name: name, Mode: "100644", Type: "blob", SHA: v})
		case map[string]any:
			entries = append(entries, gitTreeEntry{Name: name, Mode: "040000", Type: "tree", SHA: g.putNested(v)})
		}
	}
	return g.putTree(entries)
}

func gitHash(kind string, content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func (g *gitData) putBlob(content []byte) string {
	sha := gitHash("blob", content)
	g.blobs[sha] = append([]byte(nil), content...)
	return sha
}

// putTree stores entries in git's order (names compared as if a tree's
// name ended in '/') and returns the tree's id.
func (g *gitData) putTree(entries []gitTreeEntry) string {
	key := func(e gitTreeEntry) string {
		if e.Type == "tree" {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var buf bytes.Buffer
	for _, e := range entries {
		mode := e.Mode
		if e.Type == "tree" {
			mode = "40000"
		}
		raw, _ := hex.DecodeString(e.SHA)
		fmt.Fprintf(&buf, "%s %s\x00", mode, e.Name)
		buf.Write(raw)
	}
	sha := gitHash("tree", buf.Bytes())
	g.trees[sha] = entries
	return sha
}

func (g *gitData) putCommit(c gitCommit) string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&buf, "parent %s\n", p)
	}
	// A fixed identity and time: the fake's ids must be reproducible.
	buf.WriteString("author github-actions[bot] <bot@example.com> 1767225600 +0000\n")
	buf.WriteString("committer github-actions[bot] <bot@example.com> 1767225600 +0000\n\n")
	buf.WriteString(c.Message)
	sha := gitHash("commit", buf.Bytes())
	g.commits[sha] = c
	return sha
}

// walk calls fn for every entry below tree, with its full path.
func (g *gitData) walk(tree, prefix string, fn func(path string, e gitTreeEntry)) {
	for _, e := range g.trees[tree] {
		p := prefix + e.Name
		fn(p, e)
		if e.Type == "tree" {
			g.walk(e.SHA, p+"/", fn)
		}
	}
}

// ancestor reports whether a is reachable from b (or is b).
func (g *gitData) ancestor(a, b string) bool {
	seen := map[string]bool{}
	stack := []string{b}
	for len(stack) > 0 {
		sha := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if sha == a {
			return true
		}
		if seen[sha] {
			continue
		}
		seen[sha] = true
		stack = append(stack, g.commits[sha].Parents...)
	}
	return false
}

// PutBranchFile commits one file (nil content deletes it) on top of
// branch's tip, keeping the other files: a test seeds one ledger, or plays
// another writer.
func (s *Server) PutBranchFile(branch, path string, content []byte) string {
	files := s.BranchFiles(branch)
	if files == nil {
		files = map[string][]byte{}
	}
	if content == nil {
		delete(files, path)
	} else {
		files[path] = content
	}
	return s.SetBranchFiles(branch, files, "put "+path)
}

// BranchFile returns one file on branch's tip.
func (s *Server) BranchFile(branch, path string) ([]byte, bool) {
	data, ok := s.BranchFiles(branch)[path]
	return data, ok
}

// HoldRefUpdates makes the first n ref updates (PATCH git/refs) wait until
// all n have arrived (or timeout passed), so n writers are sure to have
// read the same tip before any of them moves it: a deterministic lost
// race. It wraps any Fault already set.
func (s *Server) HoldRefUpdates(n int, timeout time.Duration) {
	wait := holdUntil(n, timeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.Fault
	s.Fault = func(c Call) *Response {
		if c.Route == "PATCH /repos/{owner}/{repo}/git/refs/{ref...}" {
			wait()
		}
		if prev != nil {
			return prev(c)
		}
		return nil
	}
}
