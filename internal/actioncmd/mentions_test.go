package actioncmd

import (
	"bytes"
	"html"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/sync"
)

// mentionCases are agent texts that, rendered by GitHub's Markdown
// (cmark-gfm), produced a live @mention through the structure-aware
// sanitiser: code it took for a fence or a span was none.
var mentionCases = []struct{ name, body, from, to string }{
	{"indented fence line inside a paragraph", "Some text\n    ```\n@alice look\n    ```", "engineer", "architect"},
	{"backtick in a fence's info string", "```go`x\n@alice look\n```", "engineer", "architect"},
	{"four-backtick fence holding a three-backtick line", "````\n```\n````\n@alice look\n```", "engineer", "architect"},
	{"tilde fence closed by backticks", "~~~\n```\n@alice look", "engineer", "architect"},
	{"from and to are logins", "plain question", "@alice", "@org/team"},
	{"markup right before the name", "x*@alice* and `a`@bob and -@carol and é@dave", "engineer", "architect"},
	{"entity spelling the at sign", "&#64;alice &#x40;bob &commat;carol @&#97;lice", "engineer", "architect"},
	{"team mention", "ping @acme/core please", "engineer", "architect"},
	{"escaped at sign", "\\@alice", "engineer", "architect"},
}

func mentionLedger(body, from, to string) *ledger.Ledger {
	ts := clock.Format(time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC))
	return &ledger.Ledger{IssueNumber: 3, Clarifications: []ledger.Record{{
		ID: "CLR-3-001", IssueNumber: 3, From: from, To: to, Topic: "topic " + to, Blocking: true, Status: ledger.Escalated,
		Round: 1, MaxRounds: 3, Created: ts, StaleAfter: ts,
		Thread: []ledger.Entry{
			{Round: 1, From: from, Type: ledger.Question, Body: body, Timestamp: ts},
			{Round: 1, From: to, Type: ledger.Answer, Body: body, Timestamp: ts},
			{Round: 1, From: from, Type: ledger.Escalation, Body: body, Timestamp: ts},
		}}}}
}

// liveMention finds, in GitHub-rendered HTML, text GitHub's mention filter
// turns into a mention: "@name" after the start of a text node or a
// non-word character, outside code, pre and links (which it skips).
var liveMention = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])@[A-Za-z0-9]`)

func liveMentions(htmlDoc string) []string {
	skip := regexp.MustCompile(`(?s)<(pre|code|a)\b[^>]*>.*?</(pre|code|a)>`)
	htmlDoc = skip.ReplaceAllString(htmlDoc, "<x>")
	var out []string
	for _, node := range regexp.MustCompile(`<[^>]*>`).Split(htmlDoc, -1) {
		text := html.UnescapeString(node)
		if liveMention.MatchString(text) {
			out = append(out, text)
		}
	}
	return out
}

// TestMirrorsMentionNobody renders every mirror of the cases with Clean:
// the Markdown source never holds "@" followed by a name character
// (checked always, in pure Go), and where cmark-gfm is installed (Debian:
// apt-get install cmark-gfm) GitHub's renderer finds no live mention in
// the HTML. Without the binary that second half is skipped, and says so.
func TestMirrorsMentionNobody(t *testing.T) {
	t.Parallel()
	cmark, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Log("cmark-gfm is not installed (apt-get install cmark-gfm): the rendered-HTML check is skipped, the source check still runs")
	}
	bare := regexp.MustCompile(`@[A-Za-z0-9&]|&(?i:#0*64|#x0*40|commat);[A-Za-z0-9&]`)
	for _, tc := range mentionCases {
		for _, w := range sync.Desired(mentionLedger(tc.body, tc.from, tc.to), sync.Labels{}, Clean).Comments {
			if m := bare.FindString(w.Body); m != "" {
				t.Errorf("%s: the mirror holds %q:\n%s", tc.name, m, w.Body)
			}
			if cmark == "" {
				continue
			}
			cmd := exec.Command(cmark, "--extension", "autolink", "--extension", "table", "--extension", "strikethrough", "--extension", "tagfilter", "--unsafe")
			cmd.Stdin = strings.NewReader(w.Body)
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("cmark-gfm: %v", err)
			}
			if live := liveMentions(out.String()); len(live) > 0 {
				t.Errorf("%s: GitHub would render mentions in %q\nsource:\n%s\nhtml:\n%s", tc.name, live, w.Body, out.String())
			}
		}
	}
}

// knownLeaks are the cases whose raw rendering holds a live mention.
var knownLeaks = map[string]bool{"backtick in a fence's info string": true, "four-backtick fence holding a three-backtick line": true,
	"from and to are logins": true, "markup right before the name": true, "entity spelling the at sign": true, "team mention": true}

// TestLiveMentionDetectorSeesMentions keeps the HTML check honest: the
// same cases through a sanitiser that does nothing are caught.
func TestLiveMentionDetectorSeesMentions(t *testing.T) {
	t.Parallel()
	cmark, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm is not installed (apt-get install cmark-gfm): nothing to check the detector against")
	}
	for _, tc := range mentionCases {
		body := sync.Desired(mentionLedger(tc.body, tc.from, tc.to), sync.Labels{}, func(s string) string { return s }).Comments[0].Body
		out, err := exec.Command("sh", "-c", cmark+" --extension autolink <<'EOF'\n"+body+"\nEOF").Output()
		if err != nil {
			t.Fatal(err)
		}
		if knownLeaks[tc.name] && len(liveMentions(string(out))) == 0 {
			t.Errorf("%s: the detector found no mention in the raw rendering:\n%s", tc.name, out)
		}
	}
}
