package githubfake

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
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

func refJSON(ref, sha string) map[string]any {
	return map[string]any{"ref": "refs/" + ref, "object": map[string]any{"sha": sha, "type": "commit"}}
}

func (s *Server) getRef(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	ref := r.PathValue("ref")
	sha, ok := s.git().refs[ref]
	if !ok {
		return 404, msg("Not Found")
	}
	return 200, refJSON(ref, sha)
}

// getBranch answers the branches endpoint: the tip with its commit
// message and tree, which the Git refs endpoint does not carry.
func (s *Server) getBranch(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	name := r.PathValue("branch")
	g := s.git()
	sha, ok := g.refs["heads/"+name]
	if !ok {
		return 404, msg("Branch not found")
	}
	c := g.commits[sha]
	parents := make([]map[string]string, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, map[string]string{"sha": p})
	}
	return 200, map[string]any{"name": name, "protected": g.protected["heads/"+name], "commit": map[string]any{
		"sha": sha, "parents": parents,
		"commit": map[string]any{"message": c.Message, "tree": map[string]string{"sha": c.Tree}},
	}}
}

func (s *Server) createRef(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in struct{ Ref, SHA string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return 400, msg("Problems parsing JSON")
	}
	g := s.git()
	ref, ok := strings.CutPrefix(in.Ref, "refs/")
	if !ok || strings.Count(in.Ref, "/") < 2 {
		return 422, msg("Reference name must start with 'refs/' and have at least two slashes.")
	}
	if _, exists := g.refs[ref]; exists {
		return 422, msg("Reference already exists")
	}
	if _, ok := g.commits[in.SHA]; !ok {
		return 422, msg("Object does not exist")
	}
	if g.protected[ref] {
		return 422, msg("Protected branch update failed for refs/" + ref + ".")
	}
	g.refs[ref] = in.SHA
	return 201, refJSON(ref, in.SHA)
}

func (s *Server) updateRef(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in struct {
		SHA   string
		Force bool
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return 400, msg("Problems parsing JSON")
	}
	g := s.git()
	ref := strings.TrimPrefix(r.PathValue("ref"), "refs/")
	cur, ok := g.refs[ref]
	switch {
	case !ok:
		return 422, msg("Reference does not exist")
	case g.protected[ref]:
		return 422, msg("Protected branch update failed for refs/" + ref + ".")
	}
	if _, ok := g.commits[in.SHA]; !ok {
		return 422, msg("Object does not exist")
	}
	if !in.Force && !g.ancestor(cur, in.SHA) {
		return 422, msg("Update is not a fast forward")
	}
	g.refs[ref] = in.SHA
	return 200, refJSON(ref, in.SHA)
}

func commitJSON(sha string, c gitCommit) map[string]any {
	parents := make([]map[string]string, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, map[string]string{"sha": p})
	}
	return map[string]any{"sha": sha, "message": c.Message, "tree": map[string]string{"sha": c.Tree}, "parents": parents}
}

func (s *Server) getCommit(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	sha := r.PathValue("sha")
	c, ok := s.git().commits[sha]
	if !ok {
		return 404, msg("Not Found")
	}
	return 200, commitJSON(sha, c)
}

func (s *Server) createCommit(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in struct {
		Message string
		Tree    string
		Parents []string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return 400, msg("Problems parsing JSON")
	}
	g := s.git()
	if _, ok := g.trees[in.Tree]; !ok && in.Tree != emptyTreeSHA {
		return 422, msg("Tree SHA does not exist")
	}
	for _, p := range in.Parents {
		if _, ok := g.commits[p]; !ok {
			return 422, msg("Parent SHA does not exist or is not a commit object")
		}
	}
	c := gitCommit{Tree: in.Tree, Parents: in.Parents, Message: in.Message}
	sha := g.putCommit(c)
	return 201, commitJSON(sha, c)
}

// emptyTreeSHA is git's id of the empty tree.
const emptyTreeSHA = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

func (s *Server) getTree(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	sha := r.PathValue("sha")
	g := s.git()
	if _, ok := g.commits[sha]; ok { // GitHub accepts a commit (tree-ish) here
		sha = g.commits[sha].Tree
	}
	entries, ok := g.trees[sha]
	if !ok && sha != emptyTreeSHA {
		return 404, msg("Not Found")
	}
	out := []map[string]any{}
	emit := func(path string, e gitTreeEntry) {
		item := map[string]any{"path": path, "mode": e.Mode, "type": e.Type, "sha": e.SHA}
		if e.Type == "blob" {
			item["size"] = len(g.blobs[e.SHA])
		}
		out = append(out, item)
	}
	if r.URL.Query().Get("recursive") != "" {
		g.walk(sha, "", emit)
	} else {
		for _, e := range entries {
			emit(e.Name, e)
		}
	}
	return 200, map[string]any{"sha": sha, "tree": out, "truncated": false}
}

func (s *Server) createTree(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string
			Mode    string
			Type    string
			SHA     *string
			Content *string
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return 400, msg("Problems parsing JSON")
	}
	g := s.git()
	// Flatten the base tree, apply the entries, and build the nested trees
	// again: what GitHub does with base_tree and slash paths.
	files := map[string]string{}
	if in.BaseTree != "" {
		if _, ok := g.trees[in.BaseTree]; !ok && in.BaseTree != emptyTreeSHA {
			return 422, msg("base_tree is not a valid tree oid")
		}
		g.walk(in.BaseTree, "", func(path string, e gitTreeEntry) {
			if e.Type == "blob" {
				files[path] = e.SHA
			}
		})
	}
	for _, e := range in.Tree {
		if e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.HasSuffix(e.Path, "/") {
			return 422, msg("tree.path contains a malformed path component")
		}
		switch {
		case e.Content != nil:
			files[e.Path] = g.putBlob([]byte(*e.Content))
		case e.SHA == nil: // sha: null deletes the path
			if _, ok := files[e.Path]; !ok {
				return 422, msg("GitRPC::BadObjectState")
			}
			delete(files, e.Path)
		default:
			if _, ok := g.blobs[*e.SHA]; !ok {
				return 422, msg("tree.sha " + *e.SHA + " is not a valid blob")
			}
			files[e.Path] = *e.SHA
		}
	}
	sha := g.putFiles(files)
	return 201, map[string]any{"sha": sha, "truncated": false}
}

func (s *Server) getBlob(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	sha := r.PathValue("sha")
	b, ok := s.git().blobs[sha]
	if !ok {
		return 404, msg("Not Found")
	}
	return 200, map[string]any{"sha": sha, "size": len(b), "encoding": "base64", "content": base64.StdEncoding.EncodeToString(b)}
}

func (s *Server) createBlob(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in struct{ Content, Encoding string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return 400, msg("Problems parsing JSON")
	}
	content := []byte(in.Content)
	if in.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			return 422, msg("content is not valid Base64")
		}
		content = b
	}
	sha := s.git().putBlob(content)
	return 201, map[string]any{"sha": sha}
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
