package hostsettings

import (
	"strings"
	"testing"
)

// The hashes are what Codex 0.169.0 itself reports for these hooks
// (`codex app-server`, hooks/list: currentHash), so doctor's verdict is
// Codex's own.
func TestCodexHookTrust(t *testing.T) {
	t.Parallel()
	const path = "/tmp/hostfix-npm/cproj/.codex/hooks.json"
	hooks := []byte(`{"hooks":{"SessionStart":[{"matcher":"startup|resume","hooks":[{"type":"command","command":"agentx-hook hook start --format codex","timeout":10}]}],` +
		`"Stop":[{"hooks":[{"type":"command","command":"agentx-hook hook finish"}]}],` +
		`"SessionEnd":[{"hooks":[{"type":"command","command":"agentx-hook hook finish","timeout":3}]}]}}`)
	want := map[string]string{
		"SessionStart": "sha256:addc909a014c70a9cf87bd25cb792c57a56bf27bcdbc9881bcffe523f79c45c1",
		"Stop":         "sha256:fc46d200f21bb4ba362c300d1632549741e043cf9bf32a3bb747d470f210bf20",
		"SessionEnd":   "sha256:0c34bf98e24394d9587bdcde055b1f5477ccb53b7fe8dfaf074435500192b60a",
	}
	user := `[hooks.state."` + path + `:session_start:0:0"]
trusted_hash = "sha256:addc909a014c70a9cf87bd25cb792c57a56bf27bcdbc9881bcffe523f79c45c1"
[hooks.state."` + path + `:stop:0:0"]
trusted_hash = "sha256:0000"
[hooks.state."` + path + `:session_end:0:0"]
enabled = false
`
	got, err := CodexHookTrust(hooks, path, []byte(user))
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, h := range got {
		if h.Hash != want[h.Event] {
			t.Errorf("%s: hash %s, want %s", h.Event, h.Hash, want[h.Event])
		}
		status[h.Event] = h.Status
	}
	if status["SessionStart"] != HookTrusted || status["Stop"] != HookModified || status["SessionEnd"] != HookDisabled || len(got) != 3 {
		t.Errorf("statuses %v", status)
	}
	got, _ = CodexHookTrust(hooks, path, nil)
	for _, h := range got {
		if h.Status != HookUntrusted || !strings.HasPrefix(h.Key, path+":") {
			t.Errorf("no state: %+v", h)
		}
	}
}

// What setup --codex writes, hashed: codex app-server (0.169.0) listed
// these four hooks as "trusted" once these hashes were recorded, and codex
// exec then ran SessionStart, Stop and SessionEnd.
func TestCodexHookTrustOfSetup(t *testing.T) {
	t.Parallel()
	h, _ := For(Codex)
	files := apply(t, Files{}, mustEdits(t)(Wire(h, Files{}, "")))
	got, err := CodexHookTrust(files[h.File], "/p/.codex/hooks.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"SessionStart": "sha256:addc909a014c70a9cf87bd25cb792c57a56bf27bcdbc9881bcffe523f79c45c1",
		"Stop":         "sha256:323d9a543f183dc5ce5f82a0d5ac8005e174aeb1f15de4133e472a9b19570bfe",
		"PreCompact":   "sha256:a380690469fac262a309db2e349233b49e965332e0e72b34cfd4731ffd02f636",
		"SessionEnd":   "sha256:e013b985f060e564253bf1d448ab44e58a5b19ab956654b62cab72560a3c081f",
		// The deliver hooks (issue 34); the real-host suite has codex
		// exec run them once /hooks-style trust is recorded.
		"UserPromptSubmit": "sha256:9d388ad5e3bbcbc728f657665ca8c6c7b7c6b3ceba6883cb372233c99d98c8c7",
		"PostToolUse":      "sha256:aff93d8126c0f7f3079758885fc275c2636638c2e2b4f2a7a6f5eb3b4d7dc4dc",
	}
	if len(got) != len(want) {
		t.Fatalf("%d hooks: %+v", len(got), got)
	}
	for _, hk := range got {
		if hk.Hash != want[hk.Event] {
			t.Errorf("%s: %s, want %s", hk.Event, hk.Hash, want[hk.Event])
		}
	}
}
