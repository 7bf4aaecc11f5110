package hookcmd

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
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// JSONFilter applies --jq or --template to a document. A binary that
// links it sets it (agentx-mcp, through internal/jsonfilter); agentx-hook
// does not: gojq builds its builtins in package initialisers that every
// hook's start would pay, so a command line with --jq or --template is
// handed to agentx-mcp, which runs the same commands (forwardJSONFilter).
var JSONFilter func(doc []byte, jq, tmpl string, w io.Writer) error

// JSONFilterCheck parses a --jq expression or --template without running
// it (set with JSONFilter), so a bad one is refused before the command acts.
var JSONFilterCheck func(jq, tmpl string) error

// jsonSwitch is --json: alone, a switch; --json=FIELD,... also picks the
// top-level keys to keep.
type jsonSwitch struct{ j *jsonFlag }

func (s jsonSwitch) IsBoolFlag() bool { return true }

func (s jsonSwitch) String() string {
	if s.j == nil || !s.j.JSON {
		return "false"
	}
	return "true"
}

func (s jsonSwitch) Set(v string) error {
	switch v {
	case "true":
		s.j.JSON = true
	case "false":
		s.j.JSON, s.j.Fields = false, nil
	default:
		s.j.JSON = true
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				s.j.Fields = append(s.j.Fields, f)
			}
		}
		if len(s.j.Fields) == 0 {
			return fmt.Errorf("--json=%q names no field", v)
		}
	}
	return nil
}

// jsonExpr is --jq or --template: a value that implies --json.
type jsonExpr struct {
	j   *jsonFlag
	dst *string
}

func (e jsonExpr) String() string {
	if e.dst == nil {
		return ""
	}
	return *e.dst
}

func (e jsonExpr) Set(v string) error {
	if v == "" {
		return errors.New("needs an expression")
	}
	*e.dst, e.j.JSON = v, true
	return nil
}

// check refuses settings that contradict each other, before the command
// runs.
func (j *jsonFlag) check() error {
	// --json=FIELDS picks the keys --jq or --template then read, as gh's
	// --json FIELDS --jq EXPR does; the two formats exclude each other.
	if j.JQ != "" && j.Template != "" {
		return usagef("--jq and --template go one at a time")
	}
	if (j.JQ != "" || j.Template != "") && JSONFilterCheck != nil {
		if err := JSONFilterCheck(j.JQ, j.Template); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// write writes the document data as the settings ask: whole or its
// chosen keys (with schemaVersion), through JSONFilter when asked.
func (j *jsonFlag) write(data []byte, w io.Writer) error {
	if len(j.Fields) > 0 {
		picked, err := j.pick(data)
		if err != nil {
			return err
		}
		data = picked
	}
	if j.JQ != "" || j.Template != "" {
		if JSONFilter == nil {
			return errcode.New(errcode.AgentError, "--jq and --template need agentx-mcp, and this binary did not hand the command to it")
		}
		var buf bytes.Buffer
		if err := JSONFilter(data, j.JQ, j.Template, &buf); err != nil {
			return usagef("%v", err)
		}
		_, err := w.Write(buf.Bytes())
		return err
	}
	_, err := w.Write(data)
	return err
}

// pick is the document data with only the keys --json=FIELDS names (and
// schemaVersion).
func (j *jsonFlag) pick(data []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		if k != "schemaVersion" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	picked := map[string]json.RawMessage{"schemaVersion": doc["schemaVersion"]}
	var unknown []string
	for _, f := range j.Fields {
		v, ok := doc[f]
		if !ok {
			unknown = append(unknown, f)
			continue
		}
		picked[f] = v
	}
	if len(unknown) > 0 {
		return nil, usagef("--json: unknown field %s; this command's fields: %s", strings.Join(unknown, ", "), strings.Join(keys, ", "))
	}
	return jsonfile.Marshal(picked)
}

// jsonFieldsHint adds to a usage error of a command line holding `--json
// WORD` (gh's way of naming fields) how to write that here: --json is a
// switch, so WORD was read as an argument.
func jsonFieldsHint(err error, args []string) error {
	var ue *usageError
	if !errors.As(err, &ue) {
		return err
	}
	for i, arg := range args[:max(len(args)-1, 0)] {
		if arg == "--" {
			break
		}
		if next := args[i+1]; (arg == "--json" || arg == "-json") && next != "" && strings.Trim(next, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,") == "" {
			// In place: a wrapper (the --json failure document) stays.
			ue.msg += fmt.Sprintf(" (for only some fields of the JSON, write --json=%s: --json alone is a switch)", next)
			break
		}
	}
	return err
}

// wantsJSONFilter reports whether args ask for --jq or --template (before
// a "--").
func wantsJSONFilter(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--jq" || a == "-jq" || a == "--template" || a == "-template",
			strings.HasPrefix(a, "--jq=") || strings.HasPrefix(a, "--template="):
			return true
		}
	}
	return false
}

// forwardJSONFilter runs the command line in agentx-mcp (beside this
// binary, else on $PATH), which links the filter, on this process's
// streams, and exits as it does.
func (a *App) forwardJSONFilter(ctx context.Context, args []string) int {
	if strings.HasPrefix(filepath.Base(os.Args[0]), mcpBinary) {
		return a.fail(errcode.New(errcode.AgentError, "this %s was built without --jq and --template", mcpBinary).
			WithHint("build it from ./cmd/agentx-mcp"))
	}
	exe, err := findCompanion(mcpBinary, "the MCP server")
	if err != nil {
		// Why not in agentx-hook: gojq and text/template cost every start
		// 0.35 ms of CPU (+20%) and the binary 2.7 MB (docs/PERFORMANCE.md,
		// issue 37), and every hook and git hook starts agentx-hook.
		dir := ""
		if self, err := os.Executable(); err == nil {
			dir = filepath.Dir(self)
		}
		return a.fail(errcode.New(errcode.NotFound, "--jq and --template run in %s, which is neither beside agentx-hook nor on $PATH", mcpBinary).
			WithHint(companionInstallHint(mcpBinary, dir, buildVersion().Version) + "; or pipe --json into jq"))
	}
	if a.rootFlag != "" {
		args = append([]string{"--root", a.rootFlag}, args...)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.Stdin, a.Stdout, a.Stderr
	cmd.Dir = a.Cwd
	if a.Environ != nil {
		cmd.Env = a.Environ()
	}
	interruptOnCancel(cmd) // it may be writing: a request with --jq
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return a.fail(fmt.Errorf("run %s: %w", exe, err))
	}
	return 0
}
