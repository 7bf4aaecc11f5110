package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/responder"
)

// ResponderArg is the argument that makes agentx-hook answer as the
// tour's architect (Answer).
const ResponderArg = "__demo-responder"

// ResponderNote is what the tour says when it wires the architect in.
const ResponderNote = "# .agentx/agentx.toml gains: [responders.architect] command = [\"agentx-hook\", \"" + ResponderArg + "\"]"

// NeedsResponder reports whether the architect's responder is wired in
// before step i of section: right after the workspace is set up, before
// the first clarification is requested, as a team would.
func NeedsResponder(section []Step, i int) bool {
	return i == 1 && len(section) > 1 && section[0].Args[0] == "init" &&
		section[i].Args[0] == "clarify" && section[i].Args[1] == "request"
}

// Root is the tour's workspace: dir when given (kept), else a new
// temporary directory that done removes unless keep is set.
func Root(dir string, keep bool) (root string, done func() error, err error) {
	none := func() error { return nil }
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", none, err
		}
		return dir, none, nil
	}
	tmp, err := os.MkdirTemp("", "agentx-demo-")
	if err != nil {
		return "", none, err
	}
	if keep {
		return tmp, none, nil
	}
	return tmp, func() error {
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("remove the demo workspace: %w", err)
		}
		return nil
	}, nil
}

// ErrDirNotEmpty is a --dir that holds anything: the demo writes a
// workspace of its own (ledgers, synthetic memory, a responder in
// agentx.toml, AGENTS.md), never among someone's files.
var ErrDirNotEmpty = errors.New("the directory is not empty")

// CheckDir accepts a directory the demo may use: one that does not exist
// yet, or an empty one.
func CheckDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) > 0:
		return ErrDirNotEmpty
	}
	return nil
}

// AddResponder gives the architect of the workspace at root a responder:
// exe (this binary) run with ResponderArg.
func AddResponder(root, exe string) error {
	path := filepath.Join(root, ".agentx", "agentx.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	q, _ := json.Marshal(exe)
	data = append(data, []byte(fmt.Sprintf("\n[responders.architect]\ncommand = [%s, %q]\ntimeout = \"10s\"\n", q, ResponderArg))...)
	return os.WriteFile(path, data, 0o644)
}

// Respond is the demo's responder: the hub's request (JSON, as the
// responder reads it on stdin) answered by Answer.
func Respond(request []byte) (string, error) {
	var req responder.Request
	if err := json.Unmarshal(request, &req); err != nil {
		return "", fmt.Errorf("demo responder: bad request: %w", err)
	}
	return Answer(req), nil
}

// Answer is the architect's answer to the hub's request, from a small
// script, as a real agent CLI would give one.
func Answer(req responder.Request) string {
	q := strings.ToLower(req.Question)
	switch {
	case strings.Contains(q, "refresh"):
		return "Yes: refresh in the middleware when the token expires within 5 minutes, so controllers never see an expired token.\n"
	case strings.Contains(q, "middleware"):
		return "Middleware. Validate once per request in auth middleware (ADR-7); controllers read the verified claims from the context.\n"
	default:
		return fmt.Sprintf("Round %d: see the architecture doc for %q.\n", req.Round, req.Topic)
	}
}

// CommandLine is the step as a shell would take it, each argument quoted
// when it needs to be.
func (s Step) CommandLine() string {
	out := make([]string, len(s.Args))
	for i, a := range s.Args {
		if strings.ContainsAny(a, " '\"?$*") || a == "" {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	cmd := "$ agentx-hook " + strings.Join(out, " ")
	if s.Stdin != "" {
		cmd += " < summary.md"
	}
	return cmd
}

// StdinLines is the step's stdin as the tour shows it, one comment line
// each, so that the output that follows (what was stored, what was
// dropped) makes sense.
func (s Step) StdinLines() []string {
	lines := []string{"# summary.md, as the agent's host hands it over at session end:"}
	for _, line := range strings.Split(s.Stdin, "\n") {
		lines = append(lines, strings.TrimRight("#   "+line, " "))
	}
	return lines
}

// Env is the environment of a step: extra over parent, without what
// would point the step at another workspace or issue.
func Env(parent func(string) string, extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		switch k {
		case "AGENTX_ROOT", "AGENTX_ISSUE":
			return ""
		}
		return parent(k)
	}
}
