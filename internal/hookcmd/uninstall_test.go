package hookcmd

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestUninstallLeavesTheRepositoryAsBeforeSetup: a repository with the
// user's own AGENTS.md, Claude Code settings and git hook gets everything
// (init in GitHub Mode, setup for all three hosts, the merge driver, a
// memory entry, a checkpoint, a sync to a bare remote); uninstall --dry-run
// changes nothing, and uninstall --yes leaves work tree, refs, reflogs,
// git config and hooks exactly as they were, and names what it could not
// remove (issue 37). The user's settings file is in the indentation setup
// writes JSON in: setup rewrites a file it wires in that form (same keys
// and values), so only such a file comes back byte for byte.
func TestUninstallLeavesTheRepositoryAsBeforeSetup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(firstSessionEnv(dir), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "NO_COLOR=1")
	repo := filepath.Join(dir, "repo")
	run := func(script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run(`git init -q -b main . && git init -q --bare -b main ../remote.git && git remote add origin ../remote.git
printf '# Our agents\n\nBe brief.\n' > AGENTS.md
mkdir .claude && printf '{\n  "permissions": {\n    "allow": [\n      "Bash(ls)"\n    ]\n  }\n}\n' > .claude/settings.json
printf '#!/bin/sh\necho ours\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit
git add -A && git commit -q -m start && git push -q origin main`)
	before := repoSnapshot(t, repo, run)

	run(`agentx-hook init --mode github >/dev/null
sed -i '0,/^agent = "architect"/s//agent = "architect"\nstatus_on_start = "In design"/' .agentx/workflows/feature.toml
agentx-hook setup --claude --codex --copilot >/dev/null 2>&1
agentx-hook hooks install --merge-driver >/dev/null
agentx-hook memory add --agent engineer --issue 1 --category decision "Chose gRPC" >/dev/null
agentx-hook checkpoint create -m first >/dev/null
agentx-hook sync >/dev/null`)
	installed := repoSnapshot(t, repo, run)
	if installed == before {
		t.Fatal("setup changed nothing: the test sees nothing to uninstall")
	}

	plan := run("agentx-hook uninstall --dry-run")
	if got := repoSnapshot(t, repo, run); got != installed {
		t.Errorf("uninstall --dry-run changed the repository:\n%s", snapshotDiff(installed, got))
	}
	for _, want := range []string{"would be removed  .agentx/", "refs/agentx/checkpoints", "refs/remotes/origin/agentx/state",
		".codex/hooks.json", "git hook post-commit", "AGENTS.md (agentx's section)", "git push origin --delete agentx/state",
		"gh label delete clarification-blocked --yes", "gh label delete 'status: In design' --yes"} {
		if !strings.Contains(plan, want) {
			t.Errorf("uninstall --dry-run does not list %q:\n%s", want, plan)
		}
	}
	out := run("agentx-hook uninstall --yes")
	if got := repoSnapshot(t, repo, run); got != before {
		t.Errorf("after uninstall the repository differs from before setup:\n%s\nuninstall said:\n%s", snapshotDiff(before, got), out)
	}
	if again := run("agentx-hook uninstall --yes"); !strings.Contains(again, "nothing of agentx's") {
		t.Errorf("a second uninstall: %s", again)
	}
	// Without --yes or --dry-run: a usage error, nothing removed.
	cmd := exec.Command("agentx-hook", "uninstall")
	cmd.Dir, cmd.Env = repo, env
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("uninstall without --yes: %v, want exit 2", err)
	}
}

// repoSnapshot is everything of the repository at root a setup or an
// uninstall could change: the work tree's files, the refs, the reflogs
// and hooks under .git, git config, the status.
func repoSnapshot(t *testing.T, root string, run func(string) string) string {
	t.Helper()
	var lines []string
	walk := func(base, prefix string, skipGit bool) {
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(base, p)
			if skipGit && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			info, err := d.Info()
			if err != nil || rel == "." {
				return nil
			}
			line := prefix + filepath.ToSlash(rel) + " " + info.Mode().String()
			if info.Mode().IsRegular() {
				data, _ := os.ReadFile(p)
				line += " " + strings.ReplaceAll(string(data), "\n", `\n`)
			}
			lines = append(lines, line)
			return nil
		})
	}
	walk(root, "", true)
	walk(filepath.Join(root, ".git", "hooks"), ".git/hooks/", false)
	walk(filepath.Join(root, ".git", "logs"), ".git/logs/", false)
	walk(filepath.Join(root, ".git", "refs"), ".git/refs/", false)
	if data, err := os.ReadFile(filepath.Join(root, ".git", "info", "attributes")); err == nil {
		lines = append(lines, ".git/info/attributes "+string(data))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n-- refs\n" + run("git for-each-ref") + "-- config\n" + run("git config --local --list") +
		"-- status\n" + run("git status --porcelain --ignored")
}

// snapshotDiff lists the lines only one snapshot has.
func snapshotDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !mb[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ma[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
