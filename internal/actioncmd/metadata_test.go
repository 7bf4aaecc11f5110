package actioncmd

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

func repoFile(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// actionMetadata reads the inputs (with defaults) and outputs of action.yml.
// A few lines of parsing keep YAML out of the module; actionlint checks the
// file's full syntax in CI.
func actionMetadata(t *testing.T) (inputs map[string]string, outputs []string) {
	inputs = map[string]string{}
	section, current := "", ""
	for _, line := range strings.Split(repoFile(t, "action.yml"), "\n") {
		switch {
		case !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":"):
			section = strings.TrimSuffix(line, ":")
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, ":"):
			current = strings.TrimSuffix(strings.TrimSpace(line), ":")
			if section == "inputs" {
				inputs[current] = ""
			} else if section == "outputs" {
				outputs = append(outputs, current)
			}
		case section == "inputs" && strings.HasPrefix(strings.TrimSpace(line), "default:"):
			v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "default:"))
			inputs[current] = strings.Trim(v, `"`)
		}
	}
	sort.Strings(outputs)
	return inputs, outputs
}

func TestActionMetadataMatchesTheBinary(t *testing.T) {
	t.Parallel()
	inputs, outputs := actionMetadata(t)
	want := []string{"allowed-associations", "allowed-users", "blocked-label", "bot-login", "command", "days", "dry-run",
		"escalated-label", "full-resync", "github-token", "max-wait", "min-permission", "operations-per-run", "reconcile-per-run",
		"reply-to-outsiders", "root", "state-branch", "write-interval"}
	var got []string
	for k := range inputs {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("action.yml inputs %v, the binary reads %v", got, want)
	}
	if inputs["github-token"] != "${{ github.token }}" || inputs["blocked-label"] != "clarification-blocked" ||
		inputs["escalated-label"] != "clarification-escalated" || inputs["allowed-associations"] != "OWNER,MEMBER,COLLABORATOR" || inputs["state-branch"] != "" {
		t.Fatalf("defaults %v", inputs)
	}
	wantOut := []string{"commands-applied", "commands-rejected", "commands-swept", "comments-created", "comments-deleted", "comments-updated",
		"digest-auto-resolution-rate", "digest-average-rounds", "digest-deadlocks", "digest-escalated", "digest-escalation-rate",
		"digest-escalations-waiting", "digest-issue", "digest-observations-stored", "digest-opened", "digest-settled",
		"digest-stale", "digest-still-open", "issues-reconciled", "issues-repaired", "issues-synced", "issues-waiting", "labels-added", "labels-removed"}
	if strings.Join(outputs, ",") != strings.Join(wantOut, ",") {
		t.Fatalf("action.yml outputs %v, want %v", outputs, wantOut)
	}
	yml := repoFile(t, "action.yml")
	if !strings.Contains(yml, "using: docker") || !strings.Contains(yml, "image: Dockerfile") {
		t.Fatal("action.yml must run the Dockerfile")
	}
}

func TestDockerfileUsesTheTestedBuild(t *testing.T) {
	t.Parallel()
	df := repoFile(t, "Dockerfile")
	for _, want := range []string{"AS build", "sh cmd/agentx-action/build.sh /out/agentx-action",
		"ARG RUNTIME_BASE=gcr.io/distroless/static", "FROM ${RUNTIME_BASE}", `ENTRYPOINT ["/agentx-action"]`} {
		if !strings.Contains(df, want) {
			t.Fatalf("Dockerfile lacks %q", want)
		}
	}
	sh := repoFile(t, "cmd/agentx-action/build.sh")
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w`} {
		if !strings.Contains(sh, want) {
			t.Fatalf("build.sh lacks %q", want)
		}
	}
}
