package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources: the inbox and each clarification's thread, as JSON a host
// can attach to its context, with resources/updated sent to a client that
// subscribed when they change (whoever changed them: this server, a CLI,
// another agent's server).
const (
	InboxURI         = "agentx://inbox"
	clarificationURI = "agentx://clarification/"
	schemaURI        = "agentx://schema/"
)

// watch is the subscriptions this server serves: each subscribed URI and
// the content it was last seen with.
type watch struct {
	mu      sync.Mutex
	seen    map[string]string // URI -> content at the last look
	running bool
	// loops is the watcher goroutine: whoever ends the session (Run, a
	// test's cleanup) waits for it after closing done, so that nothing
	// reads (or writes a derived cache) in a workspace being removed.
	loops sync.WaitGroup
}

func (s *server) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: InboxURI, Name: "inbox", Title: "Your clarification inbox", MIMEType: "application/json",
		Description: "clarify_inbox's result: questions you owe an answer to, your open requests, escalations. Subscribe to hear when it changes."},
		s.readResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: clarificationURI + "{id}", Name: "clarification", Title: "A clarification's thread",
		MIMEType: "application/json", Description: "clarify_show's result for one id (CLR-42-001). Subscribe to hear when it changes."},
		s.readResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: schemaURI + "{tool}", Name: "result-schema", Title: "A tool's full result schema",
		MIMEType: "application/schema+json", Description: "The result schema of a tool spelled out to the leaves, with descriptions (tools/list carries a lean one)."},
		s.readResource)
}

func (s *server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	text, err := s.resource(ctx, uri)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}

// resource is uri's content: the JSON of the tool result it stands for.
func (s *server) resource(ctx context.Context, uri string) (string, error) {
	var v any
	var err error
	switch {
	case uri == InboxURI:
		v, err = s.inbox(ctx, nil, inboxIn{})
	case strings.HasPrefix(uri, schemaURI):
		full, ok := fullOutput.Load(strings.TrimPrefix(uri, schemaURI))
		if !ok {
			return "", mcp.ResourceNotFoundError(uri)
		}
		v = full
	case strings.HasPrefix(uri, clarificationURI) && len(uri) > len(clarificationURI):
		v, err = s.show(ctx, nil, showIn{ID: strings.TrimPrefix(uri, clarificationURI)})
	default:
		return "", mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		if f := failureOf(err); f.Code == "NOT_FOUND" {
			return "", mcp.ResourceNotFoundError(uri)
		}
		return "", err
	}
	data, err := json.Marshal(v)
	return string(data), err
}

func (s *server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	text, err := s.resource(ctx, uri)
	if err != nil {
		return err
	}
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	if s.watch.seen == nil {
		s.watch.seen = map[string]string{}
	}
	s.watch.seen[uri] = text
	if !s.watch.running {
		s.watch.running = true
		s.watch.loops.Go(func() { s.watchLoop(context.WithoutCancel(ctx)) })
	}
	return nil
}

func (s *server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	delete(s.watch.seen, req.Params.URI)
	return nil
}

// watchLoop looks at the subscribed resources every two polls and tells
// the subscribers of each one that changed. It ends when nothing is
// subscribed, the client is gone or the session ended.
func (s *server) watchLoop(ctx context.Context) {
	tick := time.NewTicker(2 * s.o.Poll)
	defer tick.Stop()
	for {
		select {
		case <-s.o.Gone:
			return
		case <-s.o.done:
			return
		case <-tick.C:
		}
		s.watch.mu.Lock()
		uris := make([]string, 0, len(s.watch.seen))
		for uri := range s.watch.seen {
			uris = append(uris, uri)
		}
		if len(uris) == 0 {
			s.watch.running = false
			s.watch.mu.Unlock()
			return
		}
		s.watch.mu.Unlock()
		for _, uri := range uris {
			text, err := s.resource(ctx, uri)
			if err != nil {
				continue // unreadable now (a ledger being written): look again next time
			}
			s.watch.mu.Lock()
			old, still := s.watch.seen[uri]
			changed := still && old != text
			if changed {
				s.watch.seen[uri] = text
			}
			s.watch.mu.Unlock()
			if changed && s.srv != nil {
				_ = s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
			}
		}
	}
}
