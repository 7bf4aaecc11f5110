package hostsettings

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestJSONServers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		merge func([]byte, string) ([]byte, error)
		top   string
	}{{"claude", ClaudeMCP, "mcpServers"}, {"vscode", VSCodeMCP, "servers"}} {
		t.Run(tc.name, func(t *testing.T) {
			created, err := tc.merge(nil, "")
			if err != nil {
				t.Fatal(err)
			}
			want := `{
  "` + tc.top + `": {
    "agentx": {
      "args": [
        "mcp"
      ],
      "command": "agentx-hook",
      "type": "stdio"
    }
  }
}
`
			if string(created) != want {
				t.Fatalf("created:\n%s\nwant:\n%s", created, want)
			}
			again, err := tc.merge(created, "")
			if err != nil || string(again) != string(created) {
				t.Fatalf("a re-run changed the file: %v\n%s", err, again)
			}
			// The user's servers and keys stay, in their order, with their exact numbers.
			user := []byte(`{"z": 1.50, "` + tc.top + `": {"github": {"command": "gh-mcp", "args": []}}, "a": true}`)
			merged, err := tc.merge(user, "architect")
			if err != nil {
				t.Fatal(err)
			}
			s := string(merged)
			if !strings.Contains(s, `"github"`) || !strings.Contains(s, "1.50") || strings.Index(s, `"z"`) > strings.Index(s, `"a"`) ||
				strings.Index(s, `"github"`) > strings.Index(s, `"agentx"`) || !strings.Contains(s, `"--agent",`) {
				t.Fatalf("merged:\n%s", s)
			}
			// Another agent's registration is ours to update.
			updated, err := tc.merge(merged, "")
			if err != nil || strings.Contains(string(updated), "--agent") || !strings.Contains(string(updated), `"github"`) {
				t.Fatalf("updated: %v\n%s", err, updated)
			}
			// A server of the user's under our name is never replaced.
			taken := []byte(`{"` + tc.top + `": {"agentx": {"command": "other-tool"}}}`)
			if _, err := tc.merge(taken, ""); !errors.Is(err, ErrTaken) {
				t.Fatalf("taken name: %v", err)
			}
			for _, bad := range []string{`{"a": `, `[1]`, `{"` + tc.top + `": [1]}`} {
				if _, err := tc.merge([]byte(bad), ""); err == nil {
					t.Errorf("%q merged", bad)
				}
			}
		})
	}
}

func TestCodexServer(t *testing.T) {
	old := []byte("model = \"o3\"\n\n[features]\ncodex_hooks = true\n")
	merged, err := CodexMCP(old, "")
	if err != nil {
		t.Fatal(err)
	}
	want := string(old) + "\n[mcp_servers.agentx]\ncommand = \"agentx-hook\"\nargs = [\"mcp\"]\n"
	if string(merged) != want {
		t.Fatalf("merged:\n%s", merged)
	}
	again, err := CodexMCP(merged, "")
	if err != nil || string(again) != string(merged) {
		t.Fatalf("a re-run changed the file: %v\n%s", err, again)
	}
	// Another agent: the table is replaced, the tables after it kept.
	withNext := append(append([]byte(nil), merged...), "\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n"...)
	updated, err := CodexMCP(withNext, "reviewer")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Model   string                    `toml:"model"`
		Servers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(updated), &cfg); err != nil {
		t.Fatalf("%v\n%s", err, updated)
	}
	if cfg.Model != "o3" || cfg.Servers["github"]["command"] != "gh-mcp" || len(cfg.Servers["agentx"]["args"].([]any)) != 3 {
		t.Fatalf("updated:\n%s", updated)
	}
	if _, err := CodexMCP([]byte("[mcp_servers.agentx]\ncommand = \"other\"\n"), ""); !errors.Is(err, ErrTaken) {
		t.Fatalf("taken name: %v", err)
	}
	if _, err := CodexMCP([]byte("model = \n"), ""); err == nil {
		t.Fatal("invalid TOML merged")
	}
	created, err := CodexMCP(nil, "")
	if err != nil || !strings.HasPrefix(string(created), "[mcp_servers.agentx]\n") {
		t.Fatalf("created: %v\n%s", err, created)
	}
}
