package githubfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The endpoints of an issue and its comments and labels: read the issue,
// list, create, edit, delete and react to comments, read and create
// repository labels, add and remove an issue's labels.

func (s *Server) getIssue(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	set, exists := s.issues[n]
	if !ok || !exists {
		return 404, msg("Not Found")
	}
	return 200, map[string]any{"number": n, "state": "open", "title": fmt.Sprintf("Issue %d", n), "labels": labelsJSON(set, s.labels)}
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	if _, exists := s.issues[n]; !ok || !exists {
		return 404, msg("Not Found")
	}
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	page, _ := strconv.Atoi(q.Get("page"))
	if page <= 0 {
		page = 1
	}
	all := s.sortedComments(n)
	last := (len(all) + per - 1) / per
	if last == 0 {
		last = 1
	}
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		v := url.Values{}
		v.Set("per_page", strconv.Itoa(per))
		v.Set("page", strconv.Itoa(p))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := []map[string]any{}
	for i := (page - 1) * per; i < len(all) && i < page*per; i++ {
		out = append(out, commentJSON(all[i], "http://"+r.Host))
	}
	return 200, out
}

func decode(r *http.Request, v any) bool { return json.NewDecoder(r.Body).Decode(v) == nil }

func (s *Server) createComment(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	n, ok := issueNumber(r)
	if _, exists := s.issues[n]; !ok || !exists {
		return 404, msg("Not Found")
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(r, &in) || in.Body == nil || *in.Body == "" {
		return 422, msg("Validation Failed")
	}
	if len(*in.Body) > 65536 {
		return 422, msg("Validation Failed: body is too long (maximum is 65536 characters)")
	}
	c := s.addComment(n, login, "NONE", *in.Body)
	return 201, commentJSON(c, "http://"+r.Host)
}

func (s *Server) commentByID(r *http.Request) *Comment {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil
	}
	return s.comments[id]
}

func (s *Server) editComment(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	if c.User != login {
		return 403, msg("Must have admin rights to Repository.")
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(r, &in) || in.Body == nil || *in.Body == "" {
		return 422, msg("Validation Failed")
	}
	s.tick = s.tick.Add(time.Second)
	c.Body, c.Updated = *in.Body, s.tick
	return 200, commentJSON(c, "http://"+r.Host)
}

func (s *Server) deleteComment(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	delete(s.comments, c.ID)
	return 204, nil
}

func (s *Server) react(_ http.ResponseWriter, r *http.Request, login string) (int, any) {
	c := s.commentByID(r)
	if c == nil {
		return 404, msg("Not Found")
	}
	var in struct {
		Content string `json:"content"`
	}
	valid := map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true}
	if !decode(r, &in) || !valid[in.Content] {
		return 422, msg("Validation Failed")
	}
	return s.addReaction(c, login, in.Content, "http://"+r.Host) // extra.go
}

func (s *Server) getLabel(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	l, ok := s.labels[strings.ToLower(r.PathValue("name"))]
	if !ok {
		return 404, msg("Not Found")
	}
	return 200, map[string]any{"name": l.Name, "color": l.Color, "description": l.Description}
}

func (s *Server) createLabel(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	var in Label
	var raw struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !decode(r, &raw) || raw.Name == "" {
		return 422, msg("Validation Failed")
	}
	in = Label{Name: raw.Name, Color: raw.Color, Description: raw.Description}
	if _, ok := s.labels[strings.ToLower(in.Name)]; ok {
		return 422, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "Label", "code": "already_exists", "field": "name"}}}
	}
	s.labels[strings.ToLower(in.Name)] = &in
	return 201, map[string]any{"name": in.Name, "color": in.Color, "description": in.Description}
}

func (s *Server) addLabels(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	set, exists := s.issues[n]
	if !ok || !exists {
		return 404, msg("Not Found")
	}
	var names []string
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &names) != nil {
		var in struct {
			Labels []string `json:"labels"`
		}
		if json.Unmarshal(body, &in) != nil {
			return 422, msg("Validation Failed")
		}
		names = in.Labels
	}
	s.labelSet(set, names)
	return 200, labelsJSON(set, s.labels)
}

func (s *Server) removeLabel(_ http.ResponseWriter, r *http.Request, _ string) (int, any) {
	n, ok := issueNumber(r)
	set, exists := s.issues[n]
	if !ok || !exists {
		return 404, msg("Not Found")
	}
	name := r.PathValue("name")
	for have := range set {
		if strings.EqualFold(have, name) {
			delete(set, have)
			return 200, labelsJSON(set, s.labels)
		}
	}
	return 404, msg("Label does not exist")
}
