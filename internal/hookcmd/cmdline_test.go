package hookcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/initws"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/setup"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// parser adapts a command's parse function to the table.
func parser[O any](f func(*App, []string) (*O, error)) func(*App, []string) (any, error) {
	return func(a *App, args []string) (any, error) {
		o, err := f(a, args)
		if o == nil {
			return nil, err
		}
		return o, err
	}
}

func opVerb(t *testing.T, name string) protocol.VerbInfo {
	t.Helper()
	v, ok := protocol.Lookup(name)
	if !ok {
		t.Fatalf("no verb %q", name)
	}
	return v
}

// TestParse is argv -> options for every command, usage errors included:
// the options a parse returns with an error still say whether the failure
// is printed as a JSON document.
func TestParse(t *testing.T) {
	t.Parallel()
	answer, resolve := opVerb(t, "answer"), opVerb(t, "resolve")
	parseAnswer := parser(func(a *App, args []string) (*clarifyOpOptions, error) { return parseClarifyOp(a, answer, args) })
	parseResolve := parser(func(a *App, args []string) (*clarifyOpOptions, error) { return parseClarifyOp(a, resolve, args) })
	j := jsonFlag{JSON: true}
	for _, tc := range []struct {
		name    string
		parse   func(*App, []string) (any, error)
		args    []string
		env     map[string]string
		want    any    // the options (also checked with an error, when set)
		wantErr string // the usage error's message
		json    bool   // a failure is printed as a JSON document
	}{
		{name: "version", parse: parser(parseVersion), args: []string{"--json"}, want: &jsonOnlyOptions{j}},
		{name: "version bad flag after --json", parse: parser(parseVersion), args: []string{"--json", "--bogus"},
			wantErr: "version: unknown flag --bogus", json: true},
		{name: "version bad flag before --json", parse: parser(parseVersion), args: []string{"--bogus", "--json"},
			wantErr: "version: unknown flag --bogus", json: true},
		{name: "init", parse: parser(parseInit), args: []string{"--mode", "github", "--force"}, want: &initOptions{Options: initws.Options{Force: true, Mode: "github"}}},
		{name: "init bad mode", parse: parser(parseInit), args: []string{"--mode=x", "--json"},
			wantErr: `init: --mode must be local or github, not "x"`, json: true},
		{name: "clarify list", parse: parser(parseClarifyList), args: []string{"--issue", "4", "--all", "--json"},
			want: &clarifyListOptions{Issue: "4", All: true, jsonFlag: j}},
		{name: "clarify list positional", parse: parser(parseClarifyList), args: []string{"nope"}, wantErr: `unknown clarify subcommand "nope"`},
		{name: "clarify request", parse: parser(parseClarifyRequest),
			args: []string{"--issue", "7", "--from", "engineer", "--to", "architect", "--topic", "t", "--question", "q", "--non-blocking", "--workflow", "bug", "--step", "s"},
			want: &clarifyRequestOptions{Issue: "7", From: "engineer", To: "architect", Topic: "t", Question: "q", Workflow: "bug", Step: "s"}},
		{name: "clarify request blocking by default", parse: parser(parseClarifyRequest),
			args: []string{"--from", "engineer", "--to", "architect", "--topic", "t", "--question", "q", "--json"},
			want: &clarifyRequestOptions{From: "engineer", To: "architect", Topic: "t", Question: "q", Blocking: true, jsonFlag: j}},
		{name: "clarify request names every missing flag", parse: parser(parseClarifyRequest), args: []string{"--json"},
			wantErr: "clarify request needs --from, --to, --topic and --question", json: true},
		{name: "clarify request names two missing flags in order", parse: parser(parseClarifyRequest),
			args: []string{"--question", "q", "--from", "engineer"}, wantErr: "clarify request needs --to and --topic"},
		{name: "clarify request one missing flag", parse: parser(parseClarifyRequest),
			args: []string{"--to", "a", "--topic", "t", "--question", "q"}, wantErr: "clarify request needs --from"},
		{name: "clarify answer", parse: parseAnswer, args: []string{"CLR-3-001", "--body", "yes", "--as", "architect", "--json"},
			want: &clarifyOpOptions{Verb: answer, ID: "CLR-3-001", Text: "yes", As: "architect", jsonFlag: j}},
		{name: "clarify answer needs its text", parse: parseAnswer, args: []string{"CLR-3-001"}, wantErr: "clarify answer needs --body"},
		{name: "clarify answer needs an id", parse: parseAnswer, args: []string{"--body", "x", "--json"},
			wantErr: "clarify answer needs exactly one id CLR-N-NNN", json: true},
		{name: "clarify resolve without text", parse: parseResolve, args: []string{"CLR-3-001"},
			want: &clarifyOpOptions{Verb: resolve, ID: "CLR-3-001"}},
		{name: "clarify stale", parse: parser(parseClarifyStale), args: []string{"--json"}, want: &jsonOnlyOptions{j}},
		{name: "clarify stale argument", parse: parser(parseClarifyStale), args: []string{"x", "--json"},
			wantErr: `clarify stale takes no arguments (got "x")`, json: true},
		{name: "state", parse: parser(parseState), args: []string{"--json"}, want: &jsonOnlyOptions{j}},
		{name: "events", parse: parser(parseEvents), args: []string{"--since", "7d"}, want: &eventsOptions{Since: "7d"}},
		{name: "monitor argument", parse: parser(parseMonitor), args: []string{"now"}, wantErr: `monitor takes no arguments (got "now")`},
		{name: "ready", parse: parser(parseReady), args: []string{"--json"}, want: &jsonOnlyOptions{j}},
		{name: "hook start", parse: parser(parseHook), args: []string{"start", "--agent", "engineer", "--issue", "3", "--format", "claude", "--strict"},
			want: &hookOptions{Event: "start", Agent: "engineer", agentFlag: true, Issue: "3", formatFlag: formatFlag{Format: "claude"}, Strict: true}},
		{name: "hook finish agent from the environment", parse: parser(parseHook), args: []string{"finish", "--json", "--summary-file", "s.md"},
			env:  map[string]string{"AGENTX_AGENT": "reviewer"},
			want: &hookOptions{Event: "finish", Agent: "reviewer", formatFlag: formatFlag{Format: "json"}, SummaryFile: "s.md"}},
		// Without --agent or $AGENTX_AGENT the agent may still come from the
		// host payload, read when the hook runs (hook_never_blocks.txtar).
		{name: "hook start agent left to the payload", parse: parser(parseHook), args: []string{"start", "--format", "json"},
			want: &hookOptions{Event: "start", formatFlag: formatFlag{Format: "json"}}},
		{name: "setup", parse: parser(parseSetup), args: []string{"--codex", "--agent", "reviewer", "--dry-run"},
			want: &setupOptions{Options: setup.Options{Codex: true, Agent: "reviewer", DryRun: true}}},
		{name: "setup needs a host", parse: parser(parseSetup), args: []string{"--no-git-hooks", "--json"},
			wantErr: "setup needs --claude, --codex or --copilot", json: true},
		{name: "hook bad format", parse: parser(parseHook), args: []string{"start", "--agent", "a", "--format", "xml"},
			wantErr: `--format must be text, json, claude, codex or copilot (got "xml")`},
		{name: "hook unknown event", parse: parser(parseHook), args: []string{"middle", "--json"},
			wantErr: `unknown hook "middle" (start, finish)`, json: true},
		{name: "memory search", parse: parser(parseMemorySearch), args: []string{"token", "--limit", "0", "refresh", "--issue", "3", "--category", "decision", "--since", "7d"},
			want: &memorySearchOptions{Query: memory.Query{Text: "token refresh", Limit: -1, Issue: 3, IssueSet: true, Category: memory.Decision}, Since: "7d"}},
		{name: "memory search issue 0", parse: parser(parseMemorySearch), args: []string{"--issue", "0"},
			want: &memorySearchOptions{Query: memory.Query{Limit: 20, Issue: 0, IssueSet: true}}},
		{name: "memory search needs a query", parse: parser(parseMemorySearch), args: []string{"--json"},
			wantErr: "memory search needs a QUERY or a filter (--agent, --issue, --category, --step, --since, --until)", json: true},
		{name: "memory search negative limit", parse: parser(parseMemorySearch), args: []string{"x", "--limit", "-1"},
			wantErr: "--limit must not be negative"},
		{name: "memory get", parse: parser(parseMemoryGet), args: []string{"obs-1", "--json"}, want: &idOptions{ID: "obs-1", jsonFlag: j}},
		{name: "memory get needs an id", parse: parser(parseMemoryGet), args: nil, wantErr: "memory get needs one observation ID"},
		{name: "memory remove", parse: parser(parseMemoryRemove), args: []string{"obs-1"}, want: &idOptions{ID: "obs-1"}},
		{name: "memory stats", parse: parser(parseMemoryStats), args: []string{"--json"}, want: &jsonOnlyOptions{j}},
		{name: "memory rebuild", parse: parser(parseMemoryRebuild), args: nil, want: &memoryRebuildOptions{}},
		{name: "memory rebuild after sync", parse: parser(parseMemoryRebuild), args: []string{"--after-sync", "--pull-first"}, want: &memoryRebuildOptions{AfterSync: true, PullFirst: true}},
		{name: "memory add", parse: parser(parseMemoryAdd), args: []string{"--agent", "engineer", "--issue", "3", "Redis", "is", "down", "--session", "s1"},
			want: &memoryAddOptions{Agent: "engineer", Issue: "3", Category: "key-fact", Session: "s1", Text: "Redis is down"}},
		{name: "memory add from a file", parse: parser(parseMemoryAdd), args: []string{"--file", "obs.json", "--json"},
			want: &memoryAddOptions{File: "obs.json", Category: "key-fact", jsonFlag: j}},
		{name: "memory add needs agent and issue", parse: parser(parseMemoryAdd), args: []string{"text"},
			wantErr: "memory add needs --agent A and --issue N (or --file F)"},
		{name: "memory generate", parse: parser(parseMemoryGenerate), args: []string{"--observations", "5", "--issues", "2", "--seed", "9", "/tmp/big"},
			want: &memoryGenerateOptions{Observations: 5, Issues: 2, Seed: 9, Dir: "/tmp/big"}},
		{name: "memory generate into the store", parse: parser(parseMemoryGenerate), args: []string{"--into-store", "--observations", "5"},
			want: &memoryGenerateOptions{Observations: 5, Issues: 200, Seed: 1, IntoStore: true}},
		{name: "memory generate needs a target", parse: parser(parseMemoryGenerate), args: []string{"--observations", "5"},
			wantErr: "memory generate needs a target directory (memory generate [flags] DIR) or --into-store to add synthetic observations to this workspace's real store"},
		{name: "memory generate nothing", parse: parser(parseMemoryGenerate), args: []string{"--observations", "0"},
			wantErr: "--observations must be 1 to 10000000 (got 0)"},
		{name: "memory capture", parse: parser(parseMemoryCapture), args: []string{"--agent", "engineer", "--issue", "3", "--file", "f", "--session", "s"},
			want: &memoryCaptureOptions{Agent: "engineer", Issue: "3", File: "f", Session: "s"}},
		{name: "memory recall", parse: parser(parseRecall), args: []string{"--agent", "engineer", "--issue", "3", "--budget", "150", "--format", "codex", "--query", "redis"},
			want: &recallOptions{req: recallRequest{Agent: "engineer", Query: "redis", Budget: 150, Host: "codex"}, issueFlag: "3", format: "codex"}},
		{name: "memory recall for copilot", parse: parser(parseRecall), args: []string{"--write-instructions"},
			want: &recallOptions{req: recallRequest{Host: "copilot"}, format: "text", write: true}},
		{name: "memory recall for copilot with another format", parse: parser(parseRecall), args: []string{"--write-instructions", "--format", "claude"},
			wantErr: "memory recall: --write-instructions writes Copilot's form of the recall, not --format claude (drop one of them)"},
		{name: "memory recall for copilot as JSON", parse: parser(parseRecall), args: []string{"--json", "--write-instructions"},
			wantErr: "memory recall: --write-instructions writes Copilot's form of the recall, not --format json (drop one of them)", json: true},
		{name: "memory recall budget too small", parse: parser(parseRecall), args: []string{"--budget", "50", "--json"},
			wantErr: "--budget 50 is too small: a recall needs at least 100 tokens (its footer alone takes about 60)", json: true},
		{name: "memory recall bad flag after --format json", parse: parser(parseRecall), args: []string{"--format", "json", "--bogus"},
			wantErr: "memory recall: unknown flag --bogus", json: true},
		{name: "memory compact", parse: parser(parseMemoryCompact), args: []string{"--issue", "12", "--dry-run", "--older-than", "7d"},
			want: &memoryCompactOptions{Issue: 12, DryRun: true, OlderThan: "7d"}},
		{name: "memory compact needs an issue", parse: parser(parseMemoryCompact), args: []string{"--json"},
			wantErr: "memory compact needs --issue N or --auto", json: true},
		{name: "hooks install", parse: parser(parseHooksChange("install")), args: []string{"--force", "--merge-driver"},
			want: &hooksChangeOptions{Name: "install", Force: true, MergeDriver: true}},
		{name: "hooks uninstall has no --force", parse: parser(parseHooksChange("uninstall")), args: []string{"--json", "--force"},
			wantErr: "hooks uninstall: unknown flag --force", json: true},
		{name: "hooks status argument", parse: parser(parseHooksStatus), args: []string{"all"},
			wantErr: `hooks status takes no arguments (got "all")`},
		{name: "git-hook", parse: parser(parseGitHook), args: []string{"post-commit", "x"}, want: &gitHookOptions{Name: "post-commit", Args: []string{"x"}}},
		{name: "git-hook without a name", parse: parser(parseGitHook), args: nil, want: &gitHookOptions{}},
		{name: "merge-driver", parse: parser(parseMergeDriver), args: []string{"b", "/tmp/o", "t", ".agentx/x.json"},
			want: &mergeDriverOptions{Base: filepath.Join("/w", "b"), Ours: "/tmp/o", Theirs: filepath.Join("/w", "t"), Path: ".agentx/x.json"}},
		{name: "merge-driver needs four paths", parse: parser(parseMergeDriver), args: []string{"a", "b", "c"},
			wantErr: "merge-driver needs BASE OURS THEIRS PATH (git's %O %A %B %P), got 3 arguments"},
		{name: "sync", parse: parser(parseSync), args: []string{"--init-from", "HEAD", "--json"}, want: &syncOptions{InitFrom: "HEAD", jsonFlag: j}},
		{name: "sync pull and push only", parse: parser(parseSync), args: []string{"--pull-only", "--push-only"},
			wantErr: "--pull-only and --push-only exclude each other"},
		{name: "digest", parse: parser(parseDigest), args: []string{"--days", "3", "--json"}, want: &digestOptions{Days: 3, formatFlag: formatFlag{Format: "json"}}},
		{name: "checkpoint create message past the limit", parse: parser(parseCheckpointCreate), args: []string{"-m", strings.Repeat("é", 2001)},
			wantErr: "checkpoint create: -m/--message is 2001 characters, the limit is 2000"},
		{name: "checkpoint create message at the limit", parse: parser(parseCheckpointCreate), args: []string{"--message", strings.Repeat("é", 2000)},
			want: &checkpointCreateOptions{Message: strings.Repeat("é", 2000)}},
		{name: "hook deadline past the limit", parse: parser(parseHook), args: []string{"start", "--deadline", "10m1s"},
			wantErr: "--deadline must be at most 10m0s (got 10m1s)"},
		{name: "digest bad format", parse: parser(parseDigest), args: []string{"--format", "xml"}, wantErr: `digest: --format is md, json or html, not "xml"`},
		{name: "demo", parse: parser(parseDemo), args: []string{"--keep", "--dir", "d"}, want: &demoOptions{Keep: true, Dir: "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			a := &App{Stdout: &out, Stderr: io.Discard, Cwd: "/w", Getenv: func(k string) string { return tc.env[k] }}
			got, err := tc.parse(a, tc.args)
			if tc.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) || ue.msg != tc.wantErr {
					t.Fatalf("error = %v, want usage error %q", err, tc.wantErr)
				}
				m, ok := got.(jsonModer)
				var jf *jsonFailure // marked already (an unknown subcommand has no options)
				if isJSON := ok && m.jsonMode() || errors.As(err, &jf); isJSON != tc.json {
					t.Errorf("JSON failure = %v, want %v", isJSON, tc.json)
				}
			} else if err != nil {
				t.Fatalf("error = %v", err)
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("options = %+v\nwant      %+v", got, tc.want)
			}
			if out.Len() > 0 {
				t.Errorf("parse printed %q", out.String())
			}
		})
	}
}

// TestUnknownCommandJSON: a command line no command took is a JSON
// failure when what follows it asks for JSON, in either spelling.
func TestUnknownCommandJSON(t *testing.T) {
	t.Parallel()
	a := &App{}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--json"}, true},
		{[]string{"x", "--bogus", "--format", "json"}, true},
		{[]string{"--format=md"}, false},
		{nil, false},
	} {
		var jf *jsonFailure
		if got := errors.As(a.unknown(usagef("bad"), tc.args), &jf); got != tc.want {
			t.Errorf("%q: JSON = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// jsonCommands are the command paths that take --json, from the
// registries; the schema test must run each, succeeding and failing.
func jsonCommands() []string {
	noJSON := map[string]bool{"git-hook": true, "merge-driver": true, "demo": true, "completion": true, "mcp": true, "view": true}
	var out []string
	for _, c := range commands() {
		switch {
		case noJSON[c.name]:
		case c.name == "clarify":
			out = append(out, "clarify", "clarify request", "clarify show", "clarify stale")
			for _, v := range protocol.Verbs {
				out = append(out, "clarify "+string(v.Verb))
			}
		case c.name == "memory":
			for name := range memorySubs() {
				out = append(out, "memory "+name)
			}
		case c.name == "hooks":
			out = append(out, "hooks install", "hooks uninstall", "hooks status")
		case c.name == "hook":
			out = append(out, "hook start", "hook finish")
		case c.name == "checkpoint":
			for name := range checkpointSubs() {
				out = append(out, "checkpoint "+name)
			}
		case c.name == "artifact":
			for name := range artifactSubs() {
				out = append(out, "artifact "+name)
			}
		default:
			out = append(out, c.name)
		}
	}
	sort.Strings(out)
	return out
}

// commandPath is the command (and subcommand) an argv runs.
func commandPath(args []string) string {
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		switch args[0] {
		case "clarify", "memory", "hooks", "hook", "checkpoint", "artifact":
			return args[0] + " " + args[1]
		}
	}
	return args[0]
}

// TestEveryJSONDocumentHasSchemaVersion runs every command that takes
// --json, once succeeding and once failing, and reads stdout as exactly
// one JSON document carrying schemaVersion.
func TestEveryJSONDocumentHasSchemaVersion(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	root := sbt.Clone(t, sbt.Remote(t)) // a repository with a remote: hooks and sync
	const summary = "## Decisions\n- Keep the lockout at 15 minutes.\n"
	type run struct {
		args  []string
		stdin string
		code  int // the exit status it must end with
		env   map[string]string
	}
	ok := func(args ...string) run { return run{args: args} }
	fails := func(code int, args ...string) run { return run{args: args, code: code} }
	runs := []run{
		ok("init", "--json"), fails(2, "init", "--mode", "x", "--json"),
		ok("version", "--json"), fails(2, "version", "--json", "--bogus"),
		ok("clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "t", "--question", "Which one?", "--json"),
		fails(2, "clarify", "request", "--json"),
		ok("clarify", "answer", "CLR-42-001", "--body", "This one.", "--json"),
		ok("clarify", "ask", "CLR-42-001", "--body", "Why that one?", "--json"),
		ok("clarify", "escalate", "CLR-42-001", "--json"),
		ok("clarify", "resolve", "CLR-42-001", "--json"),
		ok("clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "u", "--question", "And this?", "--json"),
		ok("clarify", "abandon", "CLR-42-002", "--json"),
		ok("clarify", "--json"), ok("clarify", "--issue", "42", "--json"), fails(1, "clarify", "--issue", "abc", "--json"),
		ok("clarify", "stale", "--json"), fails(2, "clarify", "stale", "x", "--json"),
		fails(2, "clarify", "bogus", "--json"),
		ok("state", "--json"), fails(2, "state", "--bogus", "--json"),
		ok("events", "--json"), fails(1, "events", "--since", "soon", "--json"),
		ok("monitor", "--json"), fails(2, "monitor", "x", "--json"),
		ok("ready", "--json"), fails(2, "ready", "x", "--json"),
		ok("hook", "start", "--agent", "engineer", "--issue", "42", "--json"), fails(2, "hook", "start", "--json", "--strict", "--bogus"),
		{args: []string{"hook", "finish", "--agent", "engineer", "--issue", "42", "--format", "json"}, stdin: summary},
		fails(2, "hook", "finish", "--format", "json", "--strict", "--bogus"), fails(2, "hook", "--json", "--strict"),
		// Without --strict a misconfigured hook does nothing and exits 0,
		// still with one document (issue 14).
		ok("hook", "start", "--json", "--bogus"), ok("hook", "finish", "--agent", "nobody", "--json"),
		ok("memory", "add", "--agent", "engineer", "--issue", "42", "--category", "decision", "--id", "obs-engineer-42-1-a", "Tokens live in Redis.", "--json"),
		fails(2, "memory", "add", "--json"),
		ok("memory", "get", "obs-engineer-42-1-a", "--json"), fails(1, "memory", "get", "obs-none", "--json"),
		ok("memory", "search", "redis", "--json"), fails(2, "memory", "search", "--json"),
		ok("memory", "stats", "--json"), fails(2, "memory", "stats", "--json", "--bogus"),
		ok("memory", "generate", "--observations", "40", "--issues", "2", "--into-store", "--json"), fails(2, "memory", "generate", "--issues", "0", "--json"),
		fails(2, "memory", "generate", "--observations", "40", "--json"),
		{args: []string{"memory", "capture", "--agent", "engineer", "--issue", "42", "--json"}, stdin: summary},
		fails(2, "memory", "capture", "--issue", "42", "--json"),
		ok("memory", "recall", "--agent", "engineer", "--issue", "42", "--json"), fails(2, "memory", "recall", "--budget", "5", "--json"),
		ok("memory", "compact", "--issue", "1", "--json"), fails(2, "memory", "compact", "--json"),
		ok("memory", "compact", "--auto", "--json"), fails(2, "memory", "compact", "--auto", "--issue", "1", "--json"),
		ok("memory", "search", "--archived", "--issue", "1", "--json"),
		ok("memory", "remove", "obs-engineer-42-1-a", "--json"), fails(1, "memory", "remove", "obs-none", "--json"),
		ok("memory", "rebuild", "--json"), fails(2, "memory", "rebuild", "--json", "--bogus"),
		fails(2, "memory", "--json"),
		ok("hooks", "install", "--json"), fails(2, "hooks", "install", "x", "--json"),
		ok("hooks", "status", "--json"), fails(2, "hooks", "status", "x", "--json"),
		ok("hooks", "uninstall", "--json"), fails(2, "hooks", "uninstall", "--force", "--json"),
		fails(2, "hooks", "--json"),
		ok("digest", "--json"), fails(2, "digest", "--days", "0", "--json"),
		ok("verify", "--json"), fails(2, "verify", "x", "--json"),
		ok("audit", "--id", "CLR-42-001", "--json"), fails(2, "audit", "--issue", "x", "--json"),
		fails(1, "sync", "--json"), // Local Mode
		fails(2, "bogus", "--json"),
		ok("setup", "--claude", "--no-git-hooks", "--json"), fails(2, "setup", "--json"),
		fails(1, "setup", "--copilot", "--check", "--json"),
		ok("uninstall", "--dry-run", "--json"), fails(2, "uninstall", "--json"),
		ok("clarify", "show", "CLR-42-001", "--json"), fails(1, "clarify", "show", "CLR-42-999", "--json"), fails(2, "clarify", "show", "--json"),
		// doctor finds agentx-hook on the PATH TestMain set.
		{args: []string{"doctor", "--json"}, env: map[string]string{"PATH": os.Getenv("PATH")}},
		fails(1, "doctor", "--json"), fails(2, "doctor", "x", "--json"), // no PATH: fail
		ok("checkpoint", "create", "-m", "schema", "--json"), fails(2, "checkpoint", "create", "x", "--json"),
		ok("checkpoint", "list", "--json"), fails(2, "checkpoint", "list", "x", "--json"),
		fails(1, "checkpoint", "show", "zzzz", "--json"), fails(1, "checkpoint", "restore", "0000", "--json"),
		fails(2, "checkpoint", "--json"),
		ok("artifact", "generate", "--issues", "3", "--json"),
		ok("artifact", "add", "--issue", "42", "--step", "prd", "PRD-42.md", "--json"), fails(2, "artifact", "add", "--json"),
		ok("artifact", "list", "--json"), fails(1, "artifact", "list", "--issue", "x", "--json"),
		ok("artifact", "show", "PRD-42", "--json"), fails(1, "artifact", "show", "SPEC-9", "--json"),
		ok("artifact", "reject", "PRD-42", "--json"), fails(1, "artifact", "reject", "SPEC-9", "--json"),
		ok("artifact", "reopen", "PRD-42", "--json"), fails(1, "artifact", "reopen", "SPEC-9", "--json"),
		ok("artifact", "approve", "PRD-42", "--json"), fails(1, "artifact", "approve", "SPEC-9", "--json"),
		ok("artifact", "ack", "PRD-42", "--json"), fails(1, "artifact", "ack", "SPEC-9", "--json"),
		ok("artifact", "remove", "PRD-42", "--json"), fails(1, "artifact", "remove", "PRD-42", "--json"),
		fails(1, "artifact", "generate", "--issues", "3", "--json"), fails(2, "artifact", "generate", "--issues", "0", "--json"),
		fails(2, "artifact", "--json"),
	}
	for _, v := range protocol.Verbs { // no such record
		runs = append(runs, fails(1, "clarify", string(v.Verb), "CLR-9-001", "--"+v.Flag, "x", "--json"))
	}
	sbt.WriteFile(t, filepath.Join(root, "PRD-42.md"), "# PRD-42\n")
	covered := map[string][2]bool{}
	check := func(r run) {
		t.Helper()
		out, errOut, code := runApp(t, root, r.env, r.stdin, r.args...)
		if code != r.code {
			t.Fatalf("%q: exit %d, want %d\nstdout %s\nstderr %s", r.args, code, r.code, out, errOut)
		}
		dec := json.NewDecoder(strings.NewReader(out))
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%q: stdout is not a JSON document: %v\n%s", r.args, err, out)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			t.Errorf("%q: more than one document on stdout:\n%s", r.args, out)
		}
		if doc["schemaVersion"] != float64(SchemaVersion) {
			t.Errorf("%q: schemaVersion = %v\n%s", r.args, doc["schemaVersion"], out)
		}
		if (code != 0) != (doc["error"] != nil) {
			t.Errorf("%q: exit %d with error %v", r.args, code, doc["error"])
		}
		c := covered[commandPath(r.args)]
		c[min(code, 1)] = true
		covered[commandPath(r.args)] = c
	}
	for _, r := range runs {
		check(r)
	}
	out, _, _ := runApp(t, root, nil, "", "checkpoint", "list")
	id, _, _ := strings.Cut(out, " ")
	check(ok("checkpoint", "show", id, "--json"))
	check(ok("checkpoint", "restore", id, "--dry-run", "--json"))
	// An original the compaction of issue 1 archived, brought back.
	out, _, _ = runApp(t, root, nil, "", "memory", "search", "--archived", "--issue", "1", "--limit", "1", "--json")
	var archived memory.SearchDoc
	if err := json.Unmarshal([]byte(out), &archived); err != nil || len(archived.Results) != 1 {
		t.Fatalf("memory search --archived: %v\n%s", err, out)
	}
	check(ok("memory", "restore", archived.Results[0].ID, "--json"))
	check(fails(1, "memory", "restore", "obs-none", "--json"))
	// GitHub Mode for a sync that succeeds.
	sbt.WriteFile(t, filepath.Join(root, ".agentx", "agentx.toml"), "mode = \"github\"\n")
	check(ok("sync", "--json"))

	for _, name := range jsonCommands() {
		if c := covered[name]; !c[0] || !c[1] {
			t.Errorf("%s: success run %v, failure run %v; the test must run both", name, c[0], c[1])
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".agentx", "memory", "issue-42.json")); err != nil {
		t.Errorf("the memory commands ran on nothing: %v", err)
	}
}

// TestHelpSpellsFlagsWithTwoDashes: every command's --help lists its
// flags as they are typed and as messages spell them (--issue N; -m, as
// git spells a one-letter flag), never flag's own one-dash listing, and a
// default at most once.
func TestHelpSpellsFlagsWithTwoDashes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, cmd := range jsonCommands() {
		args := append(strings.Fields(cmd), "--help")
		out, _, code := runApp(t, root, nil, "", args...)
		if code != 0 || !strings.Contains(out, "Flags:\n") {
			t.Fatalf("%s --help: exit %d\n%s", cmd, code, out)
		}
		_, list, _ := strings.Cut(out, "Flags:\n")
		for _, line := range strings.Split(strings.TrimRight(list, "\n"), "\n") {
			oneLetter := len(line) > 4 && strings.HasPrefix(line, "  -") && line[3] != '-' && (len(line) == 4 || line[4] == ' ')
			if !strings.HasPrefix(line, "  --") && !oneLetter || strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help: flag line %q", cmd, line)
			}
		}
	}
}
