package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourcesWithUpdates: the inbox and a thread read as resources, and
// a subscriber hears of a change made by another agent's server.
func TestResourcesWithUpdates(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	updated := make(chan string, 10)
	engSrv, eng := connectServer(t, testOptions(t, ws, "engineer"), &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	arch := connect(t, ws, "architect", nil)
	ctx := context.Background()
	ok(t, eng, "clarify_request", map[string]any{"to": "architect", "topic": "cache", "question": "Which cache?", "blocking": false})
	res, err := eng.ReadResource(ctx, &mcp.ReadResourceParams{URI: "agentx://clarification/CLR-42-001"})
	if err != nil || !strings.Contains(res.Contents[0].Text, `"thread":[`) {
		t.Fatalf("read the thread: %v %v", err, res)
	}
	res, err = eng.ReadResource(ctx, &mcp.ReadResourceParams{URI: InboxURI})
	if err != nil || !strings.Contains(res.Contents[0].Text, `"requests":[{"id":"CLR-42-001"`) {
		t.Fatalf("read the inbox: %v %+v", err, res.Contents[0])
	}
	if _, err := eng.ReadResource(ctx, &mcp.ReadResourceParams{URI: "agentx://clarification/CLR-42-999"}); err == nil {
		t.Fatal("an unknown clarification read")
	}
	for _, uri := range []string{InboxURI, "agentx://clarification/CLR-42-001"} {
		if err := eng.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	// Under the newest protocol Subscribe returns before the server took
	// the subscription (subscriptions/listen): wait until it has.
	for _, uri := range []string{InboxURI, "agentx://clarification/CLR-42-001"} {
		for i := 0; !engSrv.subscribed(uri); i++ {
			if i == 3000 {
				t.Fatalf("%s never subscribed", uri)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	ok(t, arch, "clarify_answer", map[string]any{"id": "CLR-42-001", "body": "Redis."})
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case uri := <-updated:
			got[uri] = true
		case <-time.After(testenv.HangGuard):
			t.Fatalf("updates heard: %v", got)
		}
	}
}

// TestFullResultSchemaOnDemand: tools/list's lean output schema, and the
// full one read as a resource.
func TestFullResultSchemaOnDemand(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "agentx://schema/clarify_inbox"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Contents[0].Text; !strings.Contains(text, `"latestQuestion"`) || !strings.Contains(text, `"integrity"`) {
		t.Fatalf("the full schema: %s", text)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "agentx://schema/nope"}); err == nil {
		t.Fatal("a schema of no tool")
	}
}

// subscribed reports whether uri is watched (tests wait for it: a client
// may hear its subscribe acknowledged before the server took it).
func (s *server) subscribed(uri string) bool {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	_, ok := s.watch.seen[uri]
	return ok
}
