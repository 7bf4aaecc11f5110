package githubfake

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"sort"
)

// addArchiveRoutes serves GET /repos/{owner}/{repo}/tarball/{ref} as
// GitHub does: a 302 to codeload, counted as one API call, and the
// codeload download itself (not an API call, so not counted): a gzipped
// tar of the commit's files under a top directory owner-repo-sha/. The
// ref is a commit sha or a branch.
func (s *Server) addArchiveRoutes(add func(string, handler), mux *http.ServeMux) {
	add("GET /repos/{owner}/{repo}/tarball/{ref...}", func(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
		w.Header().Set("Location", s.URL()+"/_codeload/"+r.PathValue("owner")+"/"+r.PathValue("repo")+"/legacy.tar.gz/"+r.PathValue("ref"))
		return http.StatusFound, nil
	})
	mux.HandleFunc("GET /_codeload/{owner}/{repo}/legacy.tar.gz/{ref...}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		g := s.git()
		sha := r.PathValue("ref")
		if tip, ok := g.refs["heads/"+sha]; ok {
			sha = tip
		}
		c, ok := g.commits[sha]
		files := map[string][]byte{}
		if ok {
			g.walk(c.Tree, "", func(path string, e gitTreeEntry) {
				if e.Type == "blob" {
					files[path] = append([]byte(nil), g.blobs[e.SHA]...)
				}
			})
		}
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		top := r.PathValue("owner") + "-" + r.PathValue("repo") + "-" + sha[:7] + "/"
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			_ = tw.WriteHeader(&tar.Header{Name: top + p, Mode: 0o644, Size: int64(len(files[p])), Typeflag: tar.TypeReg})
			_, _ = tw.Write(files[p])
		}
		_ = tw.Close()
		_ = zw.Close()
		w.Header().Set("Content-Type", "application/x-gzip")
		_, _ = w.Write(buf.Bytes()) // a client that went away
	})
}
