package responder

import (
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Fit makes answer fit a ledger body of limit characters. A longer answer
// is not cut without notice: the whole (already sanitised) answer is kept
// in dir as <id>-round-<round>.txt, and the body is its head followed by a
// line saying it was cut and where the rest is, relative to root. Keeping
// the answer, rather than escalating, lets the clarification go on: the
// asker has the head and a person or agent can read the file. When the file
// cannot be written the notice says so, and the cut stays recorded.
func Fit(root, dir, id string, round int, answer string, limit int) string {
	n := utf8.RuneCountInString(answer)
	if n <= limit {
		return answer
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-round-%d.txt", id, round))
	where := path
	if rel, err := filepath.Rel(root, path); err == nil {
		where = filepath.ToSlash(rel)
	}
	notice := fmt.Sprintf("\n\n[answer cut from %d to %d characters; the whole answer is in %s]", n, limit, where)
	if err := atomicfile.Write(path, []byte(answer+"\n"), atomicfile.Options{Perm: 0o600}); err != nil {
		notice = fmt.Sprintf("\n\n[answer cut from %d characters; keeping the whole answer failed: %v]", n, err)
	}
	room := limit - utf8.RuneCountInString(notice)
	if room < 0 {
		room = 0
	}
	return shorten.Text(answer, room) + shorten.Runes(notice, limit-room)
}
