package githubfake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// The git data endpoints over gitData: refs, branches, commits, trees
// and blobs, as GitHub serves them.

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
