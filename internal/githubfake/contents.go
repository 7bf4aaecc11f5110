package githubfake

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The contents API (read and write one file by path, optimistic on its
// sha) and the hold that makes concurrent writers race on the same sha.

func (s *Server) getContents(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	p := r.PathValue("path")
	data, ok := s.files[p]
	if !ok {
		return 404, msg("Not Found")
	}
	enc := base64.StdEncoding.EncodeToString(data)
	// GitHub wraps the base64 at 60 characters.
	var wrapped strings.Builder
	for len(enc) > 60 {
		wrapped.WriteString(enc[:60] + "\n")
		enc = enc[60:]
	}
	wrapped.WriteString(enc)
	name := p[strings.LastIndex(p, "/")+1:]
	return 200, map[string]any{"type": "file", "encoding": "base64", "size": len(data), "name": name, "path": p,
		"content": wrapped.String(), "sha": BlobSHA(data)}
}

func (s *Server) putContents(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	p := r.PathValue("path")
	var in struct {
		Message string `json:"message"`
		Content string `json:"content"`
		SHA     string `json:"sha"`
		Branch  string `json:"branch"`
	}
	if !decode(r, &in) || in.Message == "" {
		return 422, msg("Invalid request.\n\n\"message\" wasn't supplied.")
	}
	data, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil {
		return 422, msg("content is not valid Base64")
	}
	cur, exists := s.files[p]
	switch {
	case exists && in.SHA == "":
		return 422, msg("Invalid request.\n\n\"sha\" wasn't supplied.")
	case exists && in.SHA != BlobSHA(cur):
		return 409, msg(fmt.Sprintf("%s does not match %s", p, in.SHA))
	case !exists && in.SHA != "":
		return 409, msg(fmt.Sprintf("%s does not match %s", p, in.SHA))
	}
	s.files[p] = data
	status := 200
	if !exists {
		status = 201
	}
	sha := BlobSHA(data)
	return status, map[string]any{
		"content": map[string]any{"name": p[strings.LastIndex(p, "/")+1:], "path": p, "sha": sha},
		"commit":  map[string]any{"sha": BlobSHA([]byte(in.Message + sha)), "message": in.Message},
	}
}

// HoldContentsPuts makes the first n contents PUTs wait until all n have
// arrived (or timeout passed), so n writers are sure to have read the same
// sha before any of them writes: a deterministic optimistic-concurrency race.
func (s *Server) HoldContentsPuts(n int, timeout time.Duration) {
	hold := holdUntil(n, timeout)
	s.BeforeContentsPut = func(string) { hold() }
}

// holdUntil returns a function whose first n calls each wait until all n
// have been made (or timeout passed: a broken writer must not hang a
// test); later calls pass.
func holdUntil(n int, timeout time.Duration) func() {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func() {
		mu.Lock()
		arrived++
		k := arrived
		mu.Unlock()
		if k == n {
			close(all)
		}
		if k <= n {
			select {
			case <-all:
			case <-time.After(timeout):
			}
		}
	}
}
