// Package hostsettings owns what agentx writes into agent hosts' own
// settings files, as pure functions from a file's bytes to its new bytes:
// every other key, entry and line is kept, and a file that already holds
// what is wanted comes back unchanged (byte for byte), so setup is
// idempotent. `agentx-hook setup` reads and writes the files.
package hostsettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// ServerName is the name agentx's MCP server is registered under.
const ServerName = "agentx"

// Command is the program a host starts for the server.
const Command = "agentx-hook"

// MCPArgs are the server's arguments: `mcp`, and `--agent NAME` when the
// registration is for one agent (else the session's $AGENTX_AGENT, else
// the configured default, decides at run time).
func MCPArgs(agent string) []string {
	if agent == "" {
		return []string{"mcp"}
	}
	return []string{"mcp", "--agent", agent}
}

// ErrTaken is returned when the name agentx registers under already runs
// something else: the user's entry is never replaced.
var ErrTaken = errors.New("the server name " + ServerName + " is taken by another command")

// ClaudeMCP registers the server in Claude Code's project file `.mcp.json`
// (mcpServers.agentx).
func ClaudeMCP(old []byte, agent string) ([]byte, error) {
	return mergeJSONServer(old, "mcpServers", agent)
}

// VSCodeMCP registers the server in `.vscode/mcp.json` (servers.agentx),
// where GitHub Copilot in VS Code reads a workspace's MCP servers.
func VSCodeMCP(old []byte, agent string) ([]byte, error) {
	return mergeJSONServer(old, "servers", agent)
}

// jsonEntry is the server's entry in a host's JSON file.
func jsonEntry(agent string) map[string]any {
	args := make([]any, 0, 3)
	for _, a := range MCPArgs(agent) {
		args = append(args, a)
	}
	return map[string]any{"type": "stdio", "command": Command, "args": args}
}

// mergeJSONServer puts the entry under top[ServerName], keeping every
// other key in its order and with its exact text.
func mergeJSONServer(old []byte, top, agent string) ([]byte, error) {
	var root []jsonfile.Field
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if root, err = jsonfile.SplitObject(old); err != nil {
			return nil, fmt.Errorf("not a valid JSON object: %w", err)
		}
	}
	ti := fieldIndex(root, top)
	var servers []jsonfile.Field
	if ti >= 0 {
		var err error
		if servers, err = jsonfile.SplitObject(root[ti].Value); err != nil {
			return nil, fmt.Errorf("%q is not a JSON object: %w", top, err)
		}
	}
	want := jsonEntry(agent)
	wantRaw, err := json.Marshal(want)
	if err != nil {
		return nil, err
	}
	si := fieldIndex(servers, ServerName)
	if si >= 0 {
		var have map[string]any
		if err := json.Unmarshal(servers[si].Value, &have); err != nil {
			return nil, fmt.Errorf("%s.%s is not a JSON object", top, ServerName)
		}
		if jsonEqual(have, want) {
			return old, nil
		}
		if have["command"] != Command {
			return nil, fmt.Errorf("%s.%s: %w (%v)", top, ServerName, ErrTaken, have["command"])
		}
		servers[si].Value = wantRaw
	} else {
		servers = append(servers, jsonfile.Field{Key: ServerName, Value: wantRaw})
	}
	joined := jsonfile.JoinObject(servers)
	if ti >= 0 {
		root[ti].Value = joined
	} else {
		root = append(root, jsonfile.Field{Key: top, Value: joined})
	}
	var out bytes.Buffer
	if err := json.Indent(&out, jsonfile.JoinObject(root), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func fieldIndex(fields []jsonfile.Field, key string) int {
	for i, f := range fields {
		if f.Key == key {
			return i
		}
	}
	return -1
}

// jsonEqual compares two decoded JSON values (numbers as float64).
func jsonEqual(a, b any) bool {
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	var va, vb any
	_ = json.Unmarshal(ra, &va)
	_ = json.Unmarshal(rb, &vb)
	return reflect.DeepEqual(va, vb)
}

// codexHeader matches the server's table in Codex's config.toml. It is
// compiled when setup needs it, not at every start of agentx-hook.
const codexHeader = `(?m)^[ \t]*\[mcp_servers\.agentx\][ \t]*(#.*)?$`

// codexBlock is the table setup writes.
func codexBlock(agent string) string {
	quoted := make([]string, 0, 3)
	for _, a := range MCPArgs(agent) {
		quoted = append(quoted, strconv.Quote(a))
	}
	return "[mcp_servers." + ServerName + "]\ncommand = " + strconv.Quote(Command) + "\nargs = [" + strings.Join(quoted, ", ") + "]\n"
}

// CodexMCP registers the server in Codex's `.codex/config.toml`
// ([mcp_servers.agentx]), touching no other line.
func CodexMCP(old []byte, agent string) ([]byte, error) {
	var cfg struct {
		Servers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(old), &cfg); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	have, exists := cfg.Servers[ServerName]
	if !exists {
		out := append([]byte(nil), old...)
		if len(out) > 0 {
			if out[len(out)-1] != '\n' {
				out = append(out, '\n')
			}
			out = append(out, '\n')
		}
		return append(out, codexBlock(agent)...), nil
	}
	if have["command"] != Command {
		return nil, fmt.Errorf("[mcp_servers.%s]: %w (%v)", ServerName, ErrTaken, have["command"])
	}
	if jsonEqual(have["args"], jsonEntry(agent)["args"]) {
		return old, nil
	}
	// Another agent's registration: replace the table when setup wrote it
	// (its header line up to the next table), else leave it to the user.
	loc := regexp.MustCompile(codexHeader).FindIndex(old)
	if loc == nil {
		return nil, fmt.Errorf("[mcp_servers.%s] is written in a form setup does not rewrite; set its args to %q by hand", ServerName, MCPArgs(agent))
	}
	end := len(old)
	if next := regexp.MustCompile(`(?m)^[ \t]*\[`).FindIndex(old[loc[1]:]); next != nil {
		end = loc[1] + next[0]
	}
	out := append([]byte(nil), old[:loc[0]]...)
	out = append(out, codexBlock(agent)...)
	if end < len(old) {
		out = append(out, '\n')
	}
	return append(out, old[end:]...), nil
}

// MCP files by host: where setup registers the server.
const (
	ClaudeMCPFile = ".mcp.json"
	// CopilotMCPFile is where Copilot CLI reads a repository's servers
	// (beside .mcp.json; 1.0.102 no longer reads .vscode/mcp.json).
	CopilotMCPFile = ".github/mcp.json"
	// VSCodeMCPFile is where Copilot in VS Code reads them.
	VSCodeMCPFile  = ".vscode/mcp.json"
	codexMCPFileIs = CodexConfig // Codex's servers share its config.toml
)

// MCPFile is the file the host reads MCP servers from ("" for none).
func (h Host) MCPFile() string {
	switch h.Name {
	case Claude:
		return ClaudeMCPFile
	case Codex:
		return codexMCPFileIs
	case Copilot:
		return CopilotMCPFile
	}
	return ""
}

// mcpFiles are the files setup registers the server in for h: its own,
// and for Copilot VS Code's too.
func (h Host) mcpFiles() []string {
	if h.Name == Copilot {
		return []string{CopilotMCPFile, VSCodeMCPFile}
	}
	return []string{h.MCPFile()}
}

// mcpTop is the key a JSON MCP file keeps its servers under.
func mcpTop(file string) string {
	if file == VSCodeMCPFile {
		return "servers"
	}
	return "mcpServers"
}

// wireMCP registers the server in old (file, one of h's MCP files).
func (h Host) wireMCP(file string, old []byte, agent string) ([]byte, error) {
	if h.Name == Codex {
		return CodexMCP(old, agent)
	}
	return mergeJSONServer(old, mcpTop(file), agent)
}

// unwireMCP takes agentx's server out of old (file), keeping everything
// else; an entry under the name that runs another command is the user's
// and stays. empty reports a file left with nothing in it.
func (h Host) unwireMCP(file string, old []byte) (out []byte, empty bool, err error) {
	if h.Name == Codex {
		return removeCodexMCP(old)
	}
	return removeJSONServer(old, mcpTop(file))
}

func removeJSONServer(old []byte, top string) ([]byte, bool, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		return old, len(old) == 0, nil
	}
	root, err := jsonfile.SplitObject(old)
	if err != nil {
		return nil, false, fmt.Errorf("not a valid JSON object: %w", err)
	}
	ti := fieldIndex(root, top)
	if ti < 0 {
		return old, false, nil
	}
	servers, err := jsonfile.SplitObject(root[ti].Value)
	if err != nil {
		return nil, false, fmt.Errorf("%q is not a JSON object: %w", top, err)
	}
	si := fieldIndex(servers, ServerName)
	if si < 0 {
		return old, false, nil
	}
	var have map[string]any
	if json.Unmarshal(servers[si].Value, &have) != nil || have["command"] != Command {
		return old, false, nil // the user's entry under our name
	}
	servers = append(servers[:si], servers[si+1:]...)
	if len(servers) == 0 {
		root = append(root[:ti], root[ti+1:]...)
	} else {
		root[ti].Value = jsonfile.JoinObject(servers)
	}
	if len(root) == 0 {
		return nil, true, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, jsonfile.JoinObject(root), "", "  "); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), false, nil
}

// removeCodexMCP takes the [mcp_servers.agentx] table setup wrote (its
// header up to the next table) out of Codex's config.toml.
func removeCodexMCP(old []byte) ([]byte, bool, error) {
	var cfg struct {
		Servers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(old), &cfg); err != nil {
		return nil, false, fmt.Errorf("not valid TOML: %w", err)
	}
	have, ok := cfg.Servers[ServerName]
	if !ok || have["command"] != Command {
		return old, len(bytes.TrimSpace(old)) == 0, nil
	}
	loc := regexp.MustCompile(codexHeader).FindIndex(old)
	if loc == nil {
		return nil, false, fmt.Errorf("[mcp_servers.%s] is written in a form setup does not rewrite; remove it by hand", ServerName)
	}
	end := len(old)
	if next := regexp.MustCompile(`(?m)^[ \t]*\[`).FindIndex(old[loc[1]:]); next != nil {
		end = loc[1] + next[0]
	}
	out := append(append([]byte(nil), old[:loc[0]]...), old[end:]...)
	out = append(bytes.TrimRight(out, "\n"), '\n')
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, true, nil
	}
	return out, false, nil
}

// MCPRegistered reports whether a file the host reads registers agentx's
// server (an entry under ServerName running Command): Copilot CLI reads
// .github/mcp.json and .mcp.json, not VS Code's file.
func (h Host) MCPRegistered(files Files) bool {
	if h.Name == Copilot {
		return registeredIn(files, CopilotMCPFile) || registeredIn(files, ClaudeMCPFile)
	}
	if h.Name != Codex {
		return registeredIn(files, h.MCPFile())
	}
	data, ok := files[h.MCPFile()]
	if !ok {
		return false
	}
	var cfg struct {
		Servers map[string]map[string]any `toml:"mcp_servers"`
	}
	_, err := toml.Decode(string(data), &cfg)
	return err == nil && cfg.Servers[ServerName]["command"] == Command
}

// registeredIn reports whether the JSON MCP file registers the server.
func registeredIn(files Files, file string) bool {
	data, ok := files[file]
	if !ok {
		return false
	}
	var doc map[string]map[string]struct {
		Command string `json:"command"`
	}
	return json.Unmarshal(data, &doc) == nil && doc[mcpTop(file)][ServerName].Command == Command
}
