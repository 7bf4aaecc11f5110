// Package responder owns how the hub asks a target agent: it runs the
// program configured as `[responders.<agent>]` with the clarification as a
// JSON document on stdin and takes its stdout as the answer.
package responder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/process"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// SchemaVersion is the version of the Request document; it changes only
// when a field changes meaning or goes away.
const SchemaVersion = 1

// Request is the document a responder reads on stdin, one JSON object
// (docs/formats.md, "Responder request"). It is a schema of its own, not
// the ledger's types, so what a responder sees never follows a change of
// ours by accident.
type Request struct {
	// SchemaVersion is stamped by Respond.
	SchemaVersion int    `json:"schema_version"`
	Issue         int    `json:"issue"`
	ID            string `json:"id"`
	From          string `json:"from"`
	To            string `json:"to"`
	Topic         string `json:"topic"`
	Round         int    `json:"round"`
	Blocking      bool   `json:"blocking"`
	// Question is the latest question, the one to answer.
	Question string  `json:"question"`
	Thread   []Entry `json:"thread"`
	// Retry is set when the monitor asks again after a timeout.
	Retry bool `json:"retry,omitempty"`
}

// Entry is one message of the thread as a responder sees it.
type Entry struct {
	Round     int    `json:"round"`
	From      string `json:"from"`
	Type      string `json:"type"` // question, answer, resolution, escalation
	Body      string `json:"body"`
	Timestamp string `json:"timestamp"`
}

// Thread is a record's thread as Request entries (the ledger's unknown
// keys stay in the ledger).
func Thread(entries []ledger.Entry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		out[i] = Entry{Round: e.Round, From: e.From, Type: string(e.Type), Body: e.Body, Timestamp: e.Timestamp}
	}
	return out
}

// Exec runs configured commands.
type Exec struct {
	Responders map[string]config.Responder
	Dir        string   // working directory (the workspace root)
	Env        []string // extra environment
	// ConfigFile is where the responders are configured, for errors.
	ConfigFile string
}

// CanStart reports, without running anything, whether agent's responder
// command can be started: found on $PATH (or, with a slash, relative to
// the workspace root) and executable. A responder that cannot start is a
// configuration error, INVALID_INPUT naming its section and file; asking
// it would only escalate every question. No responder is nil.
func (e *Exec) CanStart(agent string) error {
	r, ok := e.Responders[agent]
	if !ok || len(r.Command) == 0 {
		return nil
	}
	name := r.Command[0]
	path := name
	if strings.ContainsRune(name, '/') && !filepath.IsAbs(name) {
		path = filepath.Join(e.Dir, name) // as exec runs it: relative to cmd.Dir
	}
	found, err := exec.LookPath(path)
	if err == nil {
		err = startable(found)
	}
	if err != nil {
		where := "agentx.toml"
		if e.ConfigFile != "" {
			where = e.ConfigFile
		}
		return errcode.Wrap(errcode.InvalidInput, err, "responder for %q cannot start: command %q ([responders.%s] in %s)", agent, name, agent, where).
			WithHint(fmt.Sprintf("fix the command of [responders.%s] in %s, or remove the section to let questions wait for the agent's session", agent, where))
	}
	return nil
}

// errNotProgram is an executable file the kernel will not run: exec
// fails with "exec format error" on every request.
var errNotProgram = errors.New("not a program: neither a #! script nor an executable binary (add a #! line such as #!/bin/sh)")

// startable reads the first bytes of the executable path: a script
// without a #! line passes LookPath (it is executable) but exec refuses it
// (ENOEXEC), which would escalate every question instead of naming the
// mistake. Elsewhere than on Unix-like systems the kernel decides by
// other means, so only Linux's and macOS's formats are checked.
func startable(path string) error {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	b := head[:n]
	switch {
	case bytes.HasPrefix(b, []byte("#!")), bytes.Equal(b, []byte("\x7fELF")),
		bytes.Equal(b, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.Equal(b, []byte{0xce, 0xfa, 0xed, 0xfe}), // Mach-O 64/32
		bytes.Equal(b, []byte{0xca, 0xfe, 0xba, 0xbe}): // Mach-O universal
		return nil
	}
	return errNotProgram
}

// Has reports whether agent has a responder.
func (e *Exec) Has(agent string) bool {
	r, ok := e.Responders[agent]
	return ok && len(r.Command) > 0
}

// maxAnswer bounds what we read from a responder; the protocol keeps 2,000
// characters, and a runaway program must not fill memory.
const maxAnswer = 1 << 20

// outputGrace is how long a finished responder's output may still flow.
const outputGrace = 500 * time.Millisecond

// Respond runs agent's responder and returns its answer. Failures are
// AGENT_ERROR with the reason (exit status, timeout, empty output).
func (e *Exec) Respond(ctx context.Context, agent string, req Request) (string, error) {
	r, ok := e.Responders[agent]
	if !ok || len(r.Command) == 0 {
		return "", errcode.New(errcode.AgentError, "no responder configured for %q", agent)
	}
	timeout := r.TimeoutOr()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req.SchemaVersion = SchemaVersion
	in, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, r.Command[0], r.Command[1:]...)
	cmd.Dir = e.Dir
	cmd.Env = process.Env(parent)
	cmd.Env = append(cmd.Environ(), e.Env...)
	cmd.Env = append(cmd.Env, "AGENTX_CLARIFICATION_ID="+req.ID, fmt.Sprintf("AGENTX_ISSUE=%d", req.Issue), "AGENTX_AGENT="+agent)
	// One line: `read -r line` in a shell responder gets it whole.
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = maxAnswer, 4096
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The responder runs in its own process group, and a timeout or a
	// signal to agentx kills the whole group: a shell script's children
	// would otherwise live on holding the answer pipe.
	process.KillGroupOnCancel(cmd)
	// A child may leave the group (setsid) or outlive the responder: the
	// tree marks them all, and whatever is left of it once the responder
	// is done, answered or not, is killed (issue 26).
	tree := process.TrackTree(cmd)
	// Wait for the process, not for the end of its output: a background
	// child that inherited stdout keeps the pipe open after the responder
	// answered and exited 0. WaitDelay bounds the wait for the pipe once
	// the process is gone; what was written by then is the answer.
	cmd.WaitDelay = outputGrace
	err = cmd.Run()
	process.KillGroup(cmd)
	tree.KillAll()
	if parent.Err() != nil {
		// The caller stopped it (a signal, or a hook's deadline), not
		// the responder's own timeout: the caller decides what follows.
		return "", errcode.Wrap(errcode.AgentError, parent.Err(), "responder for %q was stopped", agent)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return "", errcode.New(errcode.AgentError, "responder for %q timed out after %s", agent, timeout)
	}
	if ctx.Err() != nil {
		return "", errcode.Wrap(errcode.AgentError, ctx.Err(), "responder for %q was stopped", agent)
	}
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if msg != "" {
				return "", errcode.New(errcode.AgentError, "responder for %q exited with status %d: %s", agent, ee.ExitCode(), firstLine(msg))
			}
			return "", errcode.New(errcode.AgentError, "responder for %q exited with status %d", agent, ee.ExitCode())
		}
		return "", errcode.Wrap(errcode.AgentError, err, "responder for %q could not run", agent)
	}
	answer := strings.TrimSpace(stdout.String())
	if answer == "" {
		return "", errcode.New(errcode.AgentError, "responder for %q printed no answer", agent)
	}
	// An answer the ledger cannot hold fails like any responder failure
	// (the router escalates and restores statuses), never half-way through
	// recording it.
	if !utf8.ValidString(answer) {
		return "", errcode.New(errcode.AgentError, "responder for %q printed invalid UTF-8", agent)
	}
	if strings.IndexByte(answer, 0) >= 0 {
		return "", errcode.New(errcode.AgentError, "responder for %q printed a NUL byte", agent)
	}
	return answer, nil
}

// firstLine is the first line of a failed responder's stderr, cut to 200
// characters on a character boundary (stderr may be any language).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return shorten.Text(s, 200)
}

type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.Len(); room < len(p) {
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return n, nil
	}
	b.Buffer.Write(p)
	return n, nil
}
