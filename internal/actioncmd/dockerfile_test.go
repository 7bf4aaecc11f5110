package actioncmd

import (
	"regexp"
	"strings"
	"testing"
)

// hadolint does not install here (a Haskell binary; no package in this
// environment), so the rules this Dockerfile must keep are checked by
// parsing it: the ones of hadolint's that apply (DL3006/DL3007 pinned
// bases, DL3020 COPY not ADD, DL3025 exec-form ENTRYPOINT, DL3022 COPY
// --from a named stage) and GitHub's for Docker actions (no USER: run as
// the default root). hadolint's DL3002 (last USER not root) is the one
// rule broken on purpose; the Dockerfile says why.

type instruction struct {
	line int
	op   string
	args string
}

// parseDockerfile returns the instructions, continuation lines joined,
// comments and blank lines dropped.
func parseDockerfile(text string) []instruction {
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		op, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, op: strings.ToUpper(op), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

var pinnedBase = regexp.MustCompile(`^(?:--platform=\$BUILDPLATFORM )?([a-z0-9./-]+)(:[A-Za-z0-9._-]+)?@sha256:[0-9a-f]{64}(?: AS ([a-z]+))?$`)

func TestDockerfileRules(t *testing.T) {
	t.Parallel()
	ins := parseDockerfile(repoFile(t, "Dockerfile"))
	stages := map[string]bool{}
	var froms []instruction
	// The bases are build arguments (CI builds on bases of its own); their
	// defaults, what the release builds on, must be the pins.
	baseArgs := map[string]string{}
	for _, in := range ins {
		switch in.op {
		case "ARG":
			if len(froms) == 0 && len(stages) == 0 {
				name, def, ok := strings.Cut(in.args, "=")
				if !ok {
					t.Errorf("line %d: ARG %s before the first FROM has no default: the release would build on nothing pinned", in.line, in.args)
				}
				baseArgs[name] = def
			}
		case "FROM":
			in.args = expandBaseArgs(in.args, baseArgs)
			m := pinnedBase.FindStringSubmatch(in.args)
			if m == nil {
				if !stages[in.args] { // FROM an earlier stage needs no pin
					t.Errorf("line %d: FROM %s is not pinned by digest (image[:tag]@sha256:<64 hex>)", in.line, in.args)
				}
				continue
			}
			if m[2] == ":latest" {
				t.Errorf("line %d: FROM %s names the latest tag", in.line, in.args)
			}
			if m[3] != "" {
				stages[m[3]] = true
			}
			froms = append(froms, in)
		case "ADD":
			t.Errorf("line %d: ADD %s: use COPY (and never ADD a URL)", in.line, in.args)
		case "USER":
			t.Errorf("line %d: USER %s: a Docker action runs as the default user, root (GitHub's docs)", in.line, in.args)
		case "ENTRYPOINT", "CMD":
			if !strings.HasPrefix(in.args, `["`) || !strings.HasSuffix(in.args, `"]`) {
				t.Errorf("line %d: %s %s is not in exec form", in.line, in.op, in.args)
			}
		case "COPY":
			if from, ok := strings.CutPrefix(in.args, "--from="); ok {
				name, _, _ := strings.Cut(from, " ")
				if !stages[name] {
					t.Errorf("line %d: COPY --from=%s names no earlier stage", in.line, name)
				}
			}
		}
	}
	if len(froms) != 2 || !strings.HasPrefix(froms[1].args, "gcr.io/distroless/static-debian12@sha256:") {
		t.Fatalf("want a build stage and a distroless static final stage, got %v", froms)
	}
	last := ins[len(ins)-1]
	if last.op != "ENTRYPOINT" || last.args != `["/agentx-action"]` {
		t.Fatalf("the image must end with ENTRYPOINT [\"/agentx-action\"], got %v", last)
	}
	var copied bool
	for _, in := range ins {
		copied = copied || (in.op == "COPY" && strings.HasPrefix(in.args, "--from=build /out/agentx-action "))
	}
	if !copied {
		t.Fatal("the final stage must copy the binary from the build stage")
	}
}

// expandBaseArgs replaces ${NAME} and $NAME in a FROM line by the default
// of the ARG before the first FROM (BUILDPLATFORM, set by BuildKit, stays).
func expandBaseArgs(args string, defaults map[string]string) string {
	for name, def := range defaults {
		args = strings.ReplaceAll(args, "${"+name+"}", def)
		args = strings.ReplaceAll(args, "$"+name+" ", def+" ")
		if strings.HasSuffix(args, "$"+name) {
			args = strings.TrimSuffix(args, "$"+name) + def
		}
	}
	return args
}

// The checks above catch what they claim to.
func TestDockerfileRulesCatch(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"FROM golang:1.26-bookworm AS build",
		"FROM golang:latest@sha256:" + strings.Repeat("a", 64),
		"ADD https://example.com/x /x",
		"USER nonroot",
		"ENTRYPOINT /agentx-action",
	} {
		ins := parseDockerfile(bad)
		m := pinnedBase.FindStringSubmatch(ins[0].args)
		caught := map[string]bool{
			"FROM":       m == nil || m[2] == ":latest",
			"ADD":        true,
			"USER":       true,
			"ENTRYPOINT": !strings.HasPrefix(ins[0].args, `["`),
		}[ins[0].op]
		if !caught {
			t.Errorf("%q passes the rules", bad)
		}
	}
	// A base argument's default is what the pin check sees.
	defaults := map[string]string{"BASE": "golang:1.26-bookworm"}
	if got := expandBaseArgs("--platform=$BUILDPLATFORM ${BASE} AS build", defaults); pinnedBase.MatchString(got) {
		t.Errorf("an unpinned base argument default passes: %q", got)
	}
	defaults["BASE"] += "@sha256:" + strings.Repeat("b", 64)
	if got := expandBaseArgs("--platform=$BUILDPLATFORM ${BASE} AS build", defaults); !pinnedBase.MatchString(got) {
		t.Errorf("a pinned base argument default fails: %q", got)
	}
	if got := parseDockerfile("# c\nRUN a \\\n  b\n"); len(got) != 1 || got[0].args != "a  b" || got[0].line != 2 {
		t.Fatalf("continuations: %+v", got)
	}
}
