package capture

import (
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// MaxCommitFiles bounds the file list of a code-change observation: a
// vendoring commit would otherwise fill it with paths.
const MaxCommitFiles = 40

// FromCommit turns `git show --name-status --format='%h %s'` output into
// a code-change candidate; ok is false when the output names no commit.
// The content is sanitised (a subject may hold a token); the summary is
// left to the store.
func FromCommit(gitShow string) (c Candidate, ok bool) {
	content, files := CommitContent(gitShow)
	if content == "" {
		return Candidate{}, false
	}
	return Candidate{Category: memory.CodeChange, Content: sanitize.Text(content), Files: files}, true
}

// CommitContent turns `git show --name-status --format='%h %s'` output
// into the observation text and the changed paths. The text is one line,
// "Commit abc1234: subject. Files: M a.go, A b.go", so its summary (the
// first 240 characters) reads well in a search listing and in a recall.
func CommitContent(out string) (content string, files []string) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	head := strings.TrimSpace(lines[0])
	if head == "" {
		return "", nil
	}
	hash, subject, _ := strings.Cut(head, " ")
	var changes []string
	more := 0
	for _, l := range lines[1:] {
		status, path, ok := strings.Cut(strings.TrimSpace(l), "\t")
		if !ok || status == "" || path == "" {
			continue
		}
		if len(files) == MaxCommitFiles {
			more++
			continue
		}
		// A rename or copy names both paths: R100<TAB>old<TAB>new.
		if from, to, renamed := strings.Cut(path, "\t"); renamed {
			path = to
			changes = append(changes, status[:1]+" "+from+" -> "+to)
		} else {
			changes = append(changes, status+" "+path)
		}
		files = append(files, path)
	}
	var b strings.Builder
	b.WriteString("Commit " + hash + ": " + strings.TrimSpace(subject))
	if len(changes) > 0 {
		b.WriteString(". Files: " + strings.Join(changes, ", "))
	}
	if more > 0 {
		b.WriteString(" and " + strconv.Itoa(more) + " more")
	}
	return b.String(), files
}
