//go:build realhost

package realhost

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// codexHook is one entry of Codex's app-server `hooks/list`.
type codexHook struct {
	Key         string `json:"key"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	Source      string `json:"source"`
}

// codexHooks asks `codex app-server` (JSON-RPC on stdio) for the hooks
// Codex finds in the repository, with their trust status.
func codexHooks(t *testing.T, w *workspace, bin string, env []string) []codexHook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := w.command(env, bin, "app-server")
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	cmd.Dir, cmd.Env = base.Dir, base.Env
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	defer func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatalf("codex app-server: %v\n%s", err, stderr.String())
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	await := func(id int) json.RawMessage {
		for sc.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
				continue
			}
			if m.Error != nil {
				t.Fatalf("codex app-server request %d: %s", id, m.Error)
			}
			return m.Result
		}
		t.Fatalf("codex app-server ended before answering request %d: %v\n%s", id, sc.Err(), stderr.String())
		return nil
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"clientInfo": map[string]any{"name": "agentx-realhost", "version": "1"}}})
	await(1)
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{w.repo}}})
	var list struct {
		Data []struct {
			Hooks []codexHook `json:"hooks"`
		} `json:"data"`
	}
	raw := await(2)
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("hooks/list: %v\n%s", err, raw)
	}
	var out []codexHook
	for _, d := range list.Data {
		out = append(out, d.Hooks...)
	}
	return out
}

// trustCodexHooks reviews the project's agentx hooks as Codex's /hooks
// does: each hook's current hash goes into the user's config.toml as
// [hooks.state."KEY"] trusted_hash. Codex runs no project hook before.
func trustCodexHooks(t *testing.T, w *workspace, bin string, env []string) {
	t.Helper()
	hooks := codexHooks(t, w, bin, env)
	var add strings.Builder
	n := 0
	for _, h := range hooks {
		if !strings.Contains(h.Command, "agentx-hook") || h.Key == "" || h.CurrentHash == "" {
			continue
		}
		fmt.Fprintf(&add, "\n[hooks.state.%q]\ntrusted_hash = %q\n", h.Key, h.CurrentHash)
		n++
	}
	if n == 0 {
		t.Fatalf("codex app-server lists no agentx hook in %s: %+v", w.repo, hooks)
	}
	path := filepath.Join(w.home, ".codex", "config.toml")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(add.String())
	must(t, err)
	must(t, f.Close())
	for _, h := range codexHooks(t, w, bin, env) {
		if strings.Contains(h.Command, "agentx-hook") && h.TrustStatus != "trusted" {
			t.Fatalf("codex still lists %s (%s) as %q after review", h.Key, h.EventName, h.TrustStatus)
		}
	}
}
