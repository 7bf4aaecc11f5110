package intake

import (
	"context"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/gitcmd"
)

// ShownFile is one file a commit changed: its status letter(s) as git
// writes them (M, A, R086), its path (the new one of a rename) and the
// blob it has after the commit (all zeros for a deletion).
type ShownFile struct {
	Status string
	Path   string
	Blob   string
}

// Shown is HEAD as the post-commit hook reads it, in one git process:
// the full commit id, the files with their blobs (what the artifact
// ledger records), and NameStatus, the same text ShowHead gives (what the
// code-change observation is made of).
type Shown struct {
	Commit     string
	NameStatus string
	Files      []ShownFile
}

// ShowHeadRaw reads HEAD once with its files' blobs: `git show --raw
// --no-abbrev` where ShowHead says --name-status, so recording the stage
// artifacts a commit wrote costs no second git process.
func ShowHeadRaw(ctx context.Context, git gitcmd.Runner) (Shown, error) {
	// --no-abbrev makes %h the full id as well: the short one is cut
	// from %H (ParseShown).
	out, err := git.Git(ctx, "show", "--no-color", "--no-ext-diff", "-m", "--first-parent",
		"--raw", "--no-abbrev", "--format=%H %s", "HEAD")
	if err != nil {
		return Shown{}, err
	}
	return ParseShown(out), nil
}

// ParseShown reads ShowHeadRaw's output ("%H %s", then raw diff lines).
// The observation's short id is the first 7 digits, git's default
// abbreviation.
func ParseShown(out string) Shown {
	return parseShown(out, true)
}

// ParseRawDiff reads `git diff --raw --no-abbrev` output.
func ParseRawDiff(out string) Shown { return parseShown(out, false) }

func parseShown(out string, header bool) Shown {
	var sh Shown
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	var b strings.Builder
	if header && len(lines) > 0 {
		full, subject, _ := strings.Cut(strings.TrimSpace(lines[0]), " ")
		short := full
		if len(short) > 7 {
			short = short[:7]
		}
		sh.Commit = full
		b.WriteString(short + " " + subject + "\n")
		lines = lines[1:]
	}
	for _, l := range lines {
		meta, paths, ok := strings.Cut(l, "\t")
		if !ok || !strings.HasPrefix(meta, ":") {
			continue
		}
		// :<old mode> <new mode> <old blob> <new blob> <status>
		f := strings.Fields(meta)
		if len(f) != 5 {
			continue
		}
		file := ShownFile{Status: f[4], Path: paths, Blob: f[3]}
		if _, to, renamed := strings.Cut(paths, "\t"); renamed {
			file.Path = to
		}
		sh.Files = append(sh.Files, file)
		b.WriteString(f[4] + "\t" + paths + "\n")
	}
	sh.NameStatus = b.String()
	return sh
}
