package hostsettings

import (
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"
)

func TestMergeHostHooks(t *testing.T) {
	t.Parallel()
	claude := claudeHost()
	for _, tt := range []struct {
		name, old string
		exists    bool
		wantErr   string
		want      []string // substrings of the result
		same      bool     // the result is old, byte for byte
	}{
		{name: "no file", want: []string{`"SessionStart"`, `"agentx-hook hook finish"`}},
		{name: "empty file", old: "", exists: true, want: []string{`"SessionEnd"`}},
		{name: "other keys kept in order", old: `{"z": 1, "a": {"b": [1.50, "x&y"]}}`, exists: true,
			want: []string{"\"z\": 1,\n  \"a\": {", `1.50`, `"x&y"`, `"hooks"`}},
		{name: "already wired", old: string(encodeOrdered(mustMerge(t, "", claude))), exists: true, same: true},
		{name: "not JSON", old: `{"hooks": `, exists: true, wantErr: "not valid JSON"},
		{name: "not an object", old: `[1]`, exists: true, wantErr: "not a JSON object"},
		{name: "hooks not an object", old: `{"hooks": []}`, exists: true, wantErr: `"hooks" is not a JSON object`},
		{name: "event not an array", old: `{"hooks": {"SessionEnd": {}}}`, exists: true, wantErr: `"hooks.SessionEnd" is not a JSON array`},
		{name: "two documents", old: `{} {}`, exists: true, wantErr: "more than one JSON value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mergeHostHooks([]byte(tt.old), tt.exists, claude, "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.same && string(got) != tt.old {
				t.Errorf("a re-run changed the file:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
			again, err := mergeHostHooks(got, true, claude, "")
			if err != nil || string(again) != string(got) {
				t.Errorf("not idempotent (%v):\n%s\n---\n%s", err, got, again)
			}
		})
	}
}

func mustMerge(t *testing.T, old string, h Host) any {
	t.Helper()
	out, err := mergeHostHooks([]byte(old), old != "", h, "")
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeOrdered(out)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEnableCodexHooks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, old, want, wantErr string
	}{
		{name: "no file", old: "", want: "[features]\nhooks = true\n"},
		{name: "other settings", old: "model = \"o4\"", want: "model = \"o4\"\n\n[features]\nhooks = true\n"},
		{name: "features table", old: "[features]\nweb_search = true\n", want: "[features]\nhooks = true\nweb_search = true\n"},
		{name: "already on", old: "[features]\nhooks = true # yes\n", want: "[features]\nhooks = true # yes\n"},
		{name: "off", old: "[features]\n  hooks = false\n", want: "[features]\n  hooks = true\n"},
		// Codex 0.169 warns on every run about codex_hooks (issue 31): the
		// key setup once wrote goes, the user's other keys stay.
		{name: "deprecated key of ours", old: "[features]\ncodex_hooks = true\nweb_search = true\n", want: "[features]\nhooks = true\nweb_search = true\n"},
		{name: "deprecated key, hooks set", old: "[features]\nhooks = true\ncodex_hooks = true\n", want: "[features]\nhooks = true\n"},
		{name: "a hooks table elsewhere", old: "[features]\nweb_search = true\n\n[other]\nhooks = false\n", want: "[features]\nhooks = true\nweb_search = true\n\n[other]\nhooks = false\n"},
		{name: "dotted key", old: "features.web_search = true\n", wantErr: "by hand"},
		{name: "not TOML", old: "[features\n", wantErr: "not valid TOML"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := enableCodexHooks([]byte(tt.old), tt.old != "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// A settings file that is not unambiguous JSON is left untouched: invalid
// UTF-8 (the decoder would write U+FFFD over it), a key twice in one
// object (the user's first block would be dropped), nesting far past any
// real file (20,000 deep took 19 s and 6.3 GB) refused at once.
func TestSetupRefusesAmbiguousSettings(t *testing.T) {
	h := claudeHost()
	cases := map[string][]byte{
		"invalid UTF-8": []byte("{\"x\": \"caf\xe9\"}\n"),
		"duplicate key": []byte(`{"hooks": {"Stop": []}, "hooks": {"SessionStart": []}}`),
		"deep":          []byte(strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)),
	}
	for name, data := range cases {
		var err error
		cpu := testenv.CPUOf(t, func() { _, err = mergeHostHooks(data, true, h, "") })
		if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
			t.Errorf("%s: %v", name, err)
		}
		if limit := 300 * time.Millisecond * testenv.RaceSlowdown; cpu > limit {
			t.Errorf("%s: refused after %s of CPU, over %s", name, cpu, limit)
		}
	}
}
