// Package viewserver is the local, read-only web view of a workspace
// (`agentx-hook view`, the agentx-view binary): overview, issue threads,
// the wait-for graph, memory and the digest, as HTML pages rendered on the
// server from the same core values the CLI prints, with inline SVG and no
// asset from elsewhere. It owns the pages and their safety (a per-run
// token, Host and Origin checks, read-only methods, escaping by
// html/template); where the data comes from is its caller's Source.
package viewserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

// Source is what the pages read. Every method reads files and writes
// nothing; each is called per request, so each must cost what its page
// shows, not the whole store.
type Source interface {
	Agents() ([]agentstatus.Entry, error)
	// Records are the records of every ledger; skipped are the ledgers that
	// did not load (reported on the page, never fatal).
	Records() (recs []ledger.Record, skipped []error, err error)
	Ledger(issue int) (*ledger.Ledger, error)
	Events(since time.Time) ([]events.Event, error)
	Search(ctx context.Context, q memory.Query) ([]memory.Row, error)
	IssueObservations(ctx context.Context, issue int) ([]memory.Observation, error)
	Observation(ctx context.Context, id string) (*memory.Observation, error)
	Digest(ctx context.Context, days int) (*digest.Report, error)
	// Stage is an issue's stage and artifact ledger (nil, nil: it has
	// none), derived as `ready` derives it from the open records given.
	Stage(issue int, open []ledger.Record) (*artifact.Stage, *artifact.File, error)
	Verify() (*verify.Report, error)
	Priority() []string
	Now() time.Time
	// Fingerprint changes when any file a page shows may have changed;
	// it must be cheap (a few stats), as every open tab polls it.
	Fingerprint() string
}

// Options configure a Server.
type Options struct {
	Source Source
	// Token is the secret every request must carry (a cookie set from
	// ?token= on the first visit); empty: one is made.
	Token string
	// Poll is how often the live stream looks at the fingerprint.
	Poll time.Duration
	// LastTabGrace is how long the server waits, once the last open page
	// has gone, for another before it stops (a click from page to page
	// closes one stream and opens the next). Zero: never stop for that.
	LastTabGrace time.Duration
	// Version is shown in the footer.
	Version string
}

// Server is one run of the view.
type Server struct {
	opt   Options
	token string
	pages *pages

	mu sync.Mutex
	// hosts are the Host values a request may carry: the listener's own
	// address and its localhost spelling (DNS rebinding sends a name of
	// the attacker's instead).
	hosts map[string]bool
	// origin is the listener's origin: a browser sends it on a cross-site
	// request, and only this one may read.
	origin string
	tabs   int
	seen   bool // a tab has connected at least once
	idle   chan struct{}
	timer  *time.Timer
	verify *verifyCache
}

// New returns a server over opt.Source.
func New(opt Options) (*Server, error) {
	if opt.Source == nil {
		return nil, errors.New("viewserver: no source")
	}
	tok := opt.Token
	if tok == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("make the view's token: %w", err)
		}
		tok = hex.EncodeToString(b)
	}
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	s := &Server{opt: opt, token: tok, hosts: map[string]bool{}, idle: make(chan struct{})}
	s.verify = newVerifyCache(opt.Source)
	p, err := newPages(s)
	if err != nil {
		return nil, err
	}
	s.pages = p
	return s, nil
}

// Token is the run's secret.
func (s *Server) Token() string { return s.token }

// URL is the address to open: the listener's, with the token.
func (s *Server) URL(ln net.Listener) string {
	return "http://" + hostPort(ln) + "/?token=" + s.token
}

// hostPort is how a browser spells the listener's address.
func hostPort(ln net.Listener) string {
	addr := ln.Addr().(*net.TCPAddr)
	if addr.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", fmt.Sprint(addr.Port))
	}
	return net.JoinHostPort(addr.IP.String(), fmt.Sprint(addr.Port))
}

// Serve serves on ln until ctx ends or, with LastTabGrace, the last tab
// has been gone that long. It returns nil then.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hp := hostPort(ln)
	_, port, _ := net.SplitHostPort(hp)
	s.mu.Lock()
	s.hosts[hp] = true
	s.hosts[ln.Addr().String()] = true
	if addr := ln.Addr().(*net.TCPAddr); addr.IP.IsLoopback() || addr.IP.IsUnspecified() {
		s.hosts["localhost:"+port] = true
		s.hosts["127.0.0.1:"+port] = true
		s.hosts["[::1]:"+port] = true
	}
	s.origin = "http://" + hp
	s.mu.Unlock()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	go s.verify.start()
	select {
	case <-ctx.Done():
	case <-s.idle:
	case err := <-done:
		return err
	}
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	_ = srv.Close() // live streams never end by themselves
	return nil
}

// Handler is the view's HTTP handler, with every check in front.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.pages.overview)
	mux.HandleFunc("GET /issue/{n}", s.pages.issue)
	mux.HandleFunc("GET /graph", s.pages.graph)
	mux.HandleFunc("GET /memory", s.pages.memory)
	mux.HandleFunc("GET /memory/{id}", s.pages.observation)
	mux.HandleFunc("GET /digest", s.pages.digest)
	mux.HandleFunc("GET /live", s.live)
	mux.HandleFunc("GET /static/{name}", s.pages.static)
	return s.guard(mux)
}

// cookieName holds the token once the first visit has shown it.
const cookieName = "agentx_view"

// guard refuses what is not this run's own browser reading: another Host
// (DNS rebinding), another Origin (a page elsewhere), no token, a method
// that could change something. The token moves from the URL to a cookie
// on the first visit and the URL is cleaned, so it stays out of history
// and of Referer headers.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		s.mu.Lock()
		hostOK, origin := s.hosts[r.Host], s.origin
		s.mu.Unlock()
		if !hostOK {
			http.Error(w, "agentx view: wrong Host header "+fmt.Sprintf("%q", r.Host)+"; open the address agentx-hook view printed", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != origin {
			http.Error(w, "agentx view: requests from other origins are refused", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "agentx view is read-only", http.StatusMethodNotAllowed)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" {
			if !s.tokenOK(q) {
				http.Error(w, "agentx view: wrong token; open the address agentx-hook view printed", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			clean := *r.URL
			v := clean.Query()
			v.Del("token")
			clean.RawQuery = v.Encode()
			http.Redirect(w, r, clean.RequestURI(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(cookieName); err != nil || !s.tokenOK(c.Value) {
			http.Error(w, "agentx view: this address needs the token agentx-hook view printed (open the full address it printed)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// live is the stream each open page listens to: an event whenever the
// fingerprint changes, so the page fetches itself again. The open streams
// are the open tabs.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	s.tabOpened()
	defer s.tabClosed()
	last := r.URL.Query().Get("fp")
	fmt.Fprintf(w, "retry: 1000\n\n")
	fl.Flush()
	tick := time.NewTicker(s.opt.Poll)
	defer tick.Stop()
	for {
		if fp := s.opt.Source.Fingerprint(); fp != last {
			if last != "" {
				fmt.Fprintf(w, "event: change\ndata: %s\n\n", url.QueryEscape(fp))
				s.verify.invalidate()
			}
			last = fp
		} else {
			fmt.Fprintf(w, ": idle\n\n") // a closed tab shows as a failed write
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

func (s *Server) tabOpened() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tabs++
	s.seen = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

func (s *Server) tabClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tabs--
	if s.tabs > 0 || s.opt.LastTabGrace <= 0 {
		return
	}
	s.timer = time.AfterFunc(s.opt.LastTabGrace, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.tabs == 0 && s.timer != nil {
			s.timer = nil
			select {
			case <-s.idle:
			default:
				close(s.idle)
			}
		}
	})
}

// Tabs is the number of pages open now (tests wait on it).
func (s *Server) Tabs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tabs
}

// verifyCache runs `verify`'s check in the background, once per change of
// the files: at a million observations it takes seconds, which no page
// request may wait for.
type verifyCache struct {
	src  Source
	mu   sync.Mutex
	rep  *verify.Report
	err  error
	busy bool
	want bool // a change arrived while a check ran
	at   time.Time
}

func newVerifyCache(src Source) *verifyCache { return &verifyCache{src: src} }

func (v *verifyCache) start() {
	v.mu.Lock()
	if v.busy {
		v.want = true
		v.mu.Unlock()
		return
	}
	v.busy = true
	v.mu.Unlock()
	for {
		rep, err := v.src.Verify()
		v.mu.Lock()
		v.rep, v.err, v.at = rep, err, v.src.Now()
		if !v.want {
			v.busy = false
			v.mu.Unlock()
			return
		}
		v.want = false
		v.mu.Unlock()
	}
}

func (v *verifyCache) invalidate() { go v.start() }

// state is the last check's report, or nil while the first runs.
func (v *verifyCache) state() (*verify.Report, time.Time, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.rep, v.at, v.err
}

// isLoopback reports whether host (an address or localhost) is this
// machine only.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
