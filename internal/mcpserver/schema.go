package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Bound is one property's limits in a tool's input schema: the ones its
// description states and the core enforces, so a host validates them
// before the call.
type bound func(*jsonschema.Schema)

func fptr(f float64) *float64 { return &f }
func iptr(i int) *int         { return &i }

// between bounds an integer property.
func between(lo, hi int) bound {
	return func(s *jsonschema.Schema) { s.Minimum, s.Maximum = fptr(float64(lo)), fptr(float64(hi)) }
}

// chars bounds a string property's length.
func chars(lo, hi int) bound {
	return func(s *jsonschema.Schema) {
		if lo > 0 {
			s.MinLength = iptr(lo)
		}
		s.MaxLength = iptr(hi)
	}
}

// oneOf is a string property's enum.
func oneOf(vals ...string) bound {
	return func(s *jsonschema.Schema) {
		s.Enum = make([]any, len(vals))
		for i, v := range vals {
			s.Enum[i] = v
		}
	}
}

// items bounds an array property and the length of its strings.
func items(lo, hi, maxChars int) bound {
	return func(s *jsonschema.Schema) {
		s.MinItems, s.MaxItems = iptr(lo), iptr(hi)
		if s.Items != nil {
			s.Items.MaxLength = iptr(maxChars)
		}
	}
}

// Bounds shared by several tools.
var (
	issueBound = between(1, validate.MaxIssue)
	agentBound = chars(1, validate.MaxAgent)
	// actorBound: the field naming who acts, which may only name this
	// server's agent (the name's length is all a schema can say).
	actorBound = chars(0, validate.MaxAgent)
	bodyBound  = chars(1, validate.MaxBody)
	optBody    = chars(0, validate.MaxBody)
	idBound    = chars(0, 100) // required already; the core names an empty id
)

// inputSchema is In's schema as hosts want it: an optional property is
// one left out, so its type is the plain type, not ["null", T] (which
// half the hosts' validators warn about; a null argument is dropped
// before validation instead, see dropNulls), with bounds set.
func inputSchema[In any](bounds map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a tool's input type is fixed at compile time
	}
	for name, p := range s.Properties {
		unnull(p)
		if b := bounds[name]; b != nil {
			b(p)
		}
	}
	for name := range bounds {
		if s.Properties[name] == nil {
			panic("mcpserver: a bound on no property: " + name)
		}
	}
	return s
}

// unnull makes ["null", T] plain T.
func unnull(s *jsonschema.Schema) {
	if len(s.Types) == 2 && (s.Types[0] == "null" || s.Types[1] == "null") {
		t := s.Types[0]
		if t == "null" {
			t = s.Types[1]
		}
		s.Type, s.Types = t, nil
	}
}

// fullOutput holds each tool's result schema spelled out to the leaves,
// with descriptions: the detail tools/list leaves out, read on demand as
// the resource agentx://schema/{tool}.
var fullOutput sync.Map // tool name -> *jsonschema.Schema

func fullSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(err)
	}
	return s
}

// leanOutput is Out's result schema cut to what a host needs to check and
// read a result: the top-level fields with their types, nested objects
// and arrays typed but not spelled out, no descriptions. The full shape of
// every result is documented once (docs/mcp.md) rather than sent with
// every tools/list (the whole list was 33 KB, 78% of it output schemas);
// a client that wants it reads agentx://schema/{tool}.
// No field of a result is ever null (a field not set is left out), so no
// type says "null". The error object every result may carry is left out
// too: a failed call is a tool error (isError) whose text says
// `error: CODE: message`, and an undeclared field still validates; so are
// the warnings a result carries only when something could not be read.
func leanOutput[Out any]() *jsonschema.Schema {
	full := fullSchema[Out]()
	out := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for name, p := range full.Properties {
		if name == "error" || name == "warnings" {
			continue // present only when something went wrong (as error is): kept out of tools/list's budget
		}
		lean := &jsonschema.Schema{Type: p.Type, Types: p.Types}
		unnull(lean)
		if p.Items != nil {
			lean.Items = &jsonschema.Schema{Type: p.Items.Type, Types: p.Items.Types}
			unnull(lean.Items)
		}
		out.Properties[name] = lean
	}
	out.Required = full.Required
	return out
}

// dropNulls removes the top-level null arguments of a tools/call: a
// client that sends an unset optional argument as null means "not set".
func dropNulls(args json.RawMessage) json.RawMessage {
	if !bytes.Contains(args, []byte("null")) {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	changed := false
	for k, v := range m {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(m, k)
			changed = true
		}
	}
	if !changed {
		return args
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

// maxMessage bounds the message of an argument refused by the schema.
const maxMessage = 500

// argumentsMiddleware makes tools/call lenient about null arguments and
// gives the SDK's own refusals (arguments that break the input schema,
// which it reports as a bare isError text) the code, hint and retry
// advice every other tool error has.
func argumentsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || method != "tools/call" {
			return next(ctx, method, req)
		}
		if call.Params != nil && len(call.Params.Arguments) > 0 {
			call.Params.Arguments = dropNulls(call.Params.Arguments)
		}
		res, err := next(ctx, method, req)
		tr, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !tr.IsError || tr.StructuredContent != nil {
			return res, err
		}
		msg := ""
		for _, c := range tr.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg += t.Text
			}
		}
		// The validator quotes the value it refused, which may be the
		// whole of a 50 KB argument.
		f := failureOf(errcode.New(errcode.InvalidInput, "%s", shorten.Text(msg, maxMessage)).
			WithHint("the arguments break the tool's inputSchema (tools/list): fix them and call again"))
		tr.Content = []mcp.Content{&mcp.TextContent{Text: f.text()}}
		tr.StructuredContent = Outcome{Error: f}
		return tr, nil
	}
}
