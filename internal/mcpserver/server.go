// Package mcpserver is agentx's Model Context Protocol server: the
// clarification and memory verbs as tools an agent calls natively, on the
// official Go SDK. It is a surface like the CLI, over the same core: the
// router applies every clarification operation (locks, protocol rules,
// audit trail, events, responders), the memory store stores and searches
// (sanitiser, audit trail), ready.Load lists the ready queue. It reads no
// flags and prints nothing; `agentx-hook mcp` (internal/hookcmd) wires it
// to stdio.
//
// The server acts as one agent for its whole life (Options.Agent): a tool
// call naming another agent as the one who acts is refused. A failure is
// a tool error (the result's isError) whose text is the CLI's `error:
// CODE: message` and `hint:` lines and whose structured result carries
// the same code and hint in its "error" field.
package mcpserver

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/doctor"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Name is the server's name in the MCP handshake and in the hosts'
// configuration files.
const Name = "agentx"

// Default bounds of a blocking clarify_request's wait for its answer.
const (
	DefaultWait = 60 * time.Second
	MaxWait     = 10 * time.Minute
)

// Options configure a server. WS, Agent, Config, Router and Memory are
// required; build Router and Memory the way the CLI does, so both share
// the process's locks, audit trail and responders.
type Options struct {
	WS     workspace.Workspace
	Agent  string
	Config *config.Set
	Router *router.Router
	Memory *memory.Store
	// Issue is the issue a tool call that names none works on ($AGENTX_ISSUE,
	// the branch name); nil or false: the call must name one.
	Issue func(ctx context.Context) (int, bool)
	// Version is the server's version in the handshake.
	Version string
	// Wait is a blocking request's default wait for its answer (default
	// DefaultWait); Poll how often the ledger is read meanwhile (default
	// 500 ms).
	Wait, Poll time.Duration
	// Warn hears about failed side effects (the monitor's check).
	Warn func(format string, args ...any)
	// Doctor runs doctor's checks for the status tool (nil: status lists
	// no findings).
	Doctor func(ctx context.Context) []doctor.Finding
	// Gone is closed when the client has gone (its input ended): a
	// blocking wait gives up at once. Run takes it from a transport that
	// has one (StdioTransport.Gone).
	Gone <-chan struct{}
	// done is closed when Run's session has ended.
	done <-chan struct{}
}

// server is one configured server's tool handlers.
type server struct {
	o     Options
	srv   *mcp.Server
	watch watch
}

// New returns the MCP server with every tool registered.
func New(o Options) (*mcp.Server, error) {
	_, srv, err := newServer(o)
	return srv, err
}

// newServer is New with the handlers' state (tests look at it).
func newServer(o Options) (*server, *mcp.Server, error) {
	if o.Router == nil || o.Memory == nil || o.Config == nil || o.Agent == "" {
		return nil, nil, errors.New("mcpserver: Router, Memory, Config and Agent are required")
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.Warn == nil {
		o.Warn = func(string, ...any) {}
	}
	s := &server{o: o}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "agentx: clarifications and memory", Version: o.Version},
		&mcp.ServerOptions{Instructions: "You are agent " + o.Agent + ". Ask upstream agents with clarify_request when something is ambiguous (a decision only a person can make: to human, or a name of [people]); " +
			"check clarify_inbox (or the resource " + InboxURI + ") for questions waiting for your answer; search memory (memory_search, then memory_timeline or memory_get) before deciding; " +
			"record decisions with memory_remember; status says what in the workspace needs fixing. A failed call's error says whether a retry can help.",
			SubscribeHandler: s.subscribe, UnsubscribeHandler: s.unsubscribe})
	s.srv = srv
	srv.AddReceivingMiddleware(argumentsMiddleware)
	s.addClarifyTools(srv)
	s.addMemoryTools(srv)
	s.addStatusTool(srv)
	s.addResources(srv)
	s.addArtifactTools(srv)
	return s, srv, nil
}

// Run serves o over t until the client disconnects or ctx ends.
func Run(ctx context.Context, o Options, t mcp.Transport) error {
	if g, ok := t.(interface{ Gone() <-chan struct{} }); ok && o.Gone == nil {
		o.Gone = g.Gone()
	}
	done := make(chan struct{})
	o.done = done
	s, srv, err := newServer(o)
	if err != nil {
		return err
	}
	defer s.watch.loops.Wait() // the resource watcher ends with the session
	defer close(done)
	return srv.Run(ctx, t)
}

// Failure is a tool error as a structured result: the protocol's error
// code, the message, the hint the CLI gives, and whether calling again
// can help.
type Failure struct {
	Code    string `json:"code" jsonschema:"the protocol error code (NOT_FOUND, INVALID_INPUT, SCOPE_VIOLATION, ...)"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Retry   string `json:"retry"`
}

// What a retry can do (Failure.Retry).
const (
	// RetryLater: the same call may succeed later (a busy lock, a failing
	// disk, a responder that failed).
	RetryLater = "later"
	// RetryFix: it succeeds only with other arguments, or once the state
	// allows it (the hint says what to change).
	RetryFix = "fix"
	// RetryNo: no call can make it succeed; a person must act (a round
	// limit reached, a damaged state file).
	RetryNo = "no"
)

// retryOf is what calling again can do about an error with code.
func retryOf(code errcode.Code) string {
	switch code {
	case errcode.LockTimeout, errcode.IOError, errcode.AgentError:
		return RetryLater
	case errcode.MaxRoundsExceeded, errcode.CorruptState:
		return RetryNo
	}
	return RetryFix
}

// text is the failure as the CLI prints it on stderr, and the retry advice.
func (f *Failure) text() string {
	s := "error: " + f.Code + ": " + f.Message
	if f.Hint != "" {
		s += "\nhint: " + f.Hint
	}
	switch f.Retry {
	case RetryLater:
		s += "\nretry: later (the same call may succeed)"
	case RetryNo:
		s += "\nretry: no (a person must act)"
	}
	return s
}

// Outcome is embedded in every tool's result: Error is set when the call
// failed (and the result is a tool error).
type Outcome struct {
	Error *Failure `json:"error,omitempty" jsonschema:"set when the call failed"`
}

func (o *Outcome) fail(f *Failure) { o.Error = f }

type failer interface{ fail(*Failure) }

// failureOf is err as the CLI reports it (errcode.Classify).
func failureOf(err error) *Failure {
	code, hint := errcode.Classify(err)
	return &Failure{Code: string(code), Message: err.Error(), Hint: hint, Retry: retryOf(code)}
}

// spec is one tool as tools/list shows it: its name, title, description,
// what it does to the workspace (the annotations hosts decide permission
// prompts by) and the bounds of its arguments.
type spec struct {
	name, title, desc string
	// readOnly: it changes nothing the caller could notice (it reads;
	// like every agentx command it runs the monitor's check, which
	// applies timeouts already due).
	readOnly bool
	// destructive: it ends something that cannot be undone.
	destructive bool
	// idempotent: calling it again with the same arguments changes
	// nothing more.
	idempotent bool
	// openWorld: it may start something outside the workspace (a
	// configured responder, itself an agent).
	openWorld bool
	in        map[string]bound
}

// add registers one tool whose handler returns its result or an error;
// the error becomes a tool error with the protocol's code and hint.
func add[In, Out any, P interface {
	*Out
	failer
}](srv *mcp.Server, sp spec, h func(context.Context, *mcp.CallToolRequest, In) (*Out, error)) {
	// Every hint is set, false included: a host that reads a missing
	// destructiveHint or openWorldHint as the spec's default (true) would
	// ask the user's permission for nothing.
	ann := &mcp.ToolAnnotations{ReadOnlyHint: sp.readOnly, DestructiveHint: &sp.destructive,
		IdempotentHint: sp.idempotent || sp.readOnly, OpenWorldHint: &sp.openWorld}
	fullOutput.Store(sp.name, fullSchema[Out]())
	tool := &mcp.Tool{Name: sp.name, Title: sp.title, Description: sp.desc, Annotations: ann,
		InputSchema: inputSchema[In](sp.in), OutputSchema: leanOutput[Out]()}
	mcp.AddTool(srv, tool,
		func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, *Out, error) {
			out, err := h(ctx, req, in)
			if ir, ok := any(out).(interface{ inputRequired() *mcp.CallToolResult }); ok && err == nil && ir.inputRequired() != nil {
				return ir.inputRequired(), nil, nil // the client asks its user and calls again
			}
			if err == nil {
				return asData(out), out, nil
			}
			f := failureOf(err)
			out = new(Out)
			emptyLists(reflect.ValueOf(out).Elem())
			P(out).fail(f)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: f.text()}}}, out, nil
		})
}

// emptyLists sets v's nil slices (its own fields and its embedded
// structs') to empty ones: a failed call's result still has every list
// its output schema promises, as a list.
func emptyLists(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Slice && f.IsNil() && f.CanSet():
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		case f.Kind() == reflect.Struct && v.Type().Field(i).Anonymous:
			emptyLists(f)
		}
	}
}

// actor checks who a call says acts: empty or this server's agent.
func (s *server) actor(field, named string) error {
	named = strings.TrimSpace(named)
	if named == "" || named == s.o.Agent {
		return nil
	}
	return errcode.New(errcode.ScopeViolation, "%s %q: this server acts as agent %q and acts for no other", field, named, s.o.Agent).
		WithHint("leave " + field + " out, or start a server for that agent: agentx-hook mcp --agent " + named)
}

// issue is the call's issue, else the server's default.
func (s *server) issue(ctx context.Context, n *int) (int, error) {
	if n != nil {
		return *n, nil
	}
	if s.o.Issue != nil {
		if i, ok := s.o.Issue(ctx); ok {
			return i, nil
		}
	}
	return 0, errcode.New(errcode.InvalidInput, "no issue: pass \"issue\"").
		WithHint("or set $AGENTX_ISSUE, or work on a branch named like 42-topic")
}

// monitorCheck is the check every clarify command runs (ADR-1: no daemon).
func (s *server) monitorCheck(ctx context.Context) {
	if _, err := monitor.New(s.o.Router).Check(ctx); err != nil {
		s.o.Warn("monitor: %v", err)
	}
}
