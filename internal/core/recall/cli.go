package recall

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// A recall as `memory recall` hands it out: whether [memory] lets it run
// at all, the section's text, its rows for --json, and the instructions
// file GitHub Copilot reads instead of hook output.

// InstructionsFile is where Copilot reads recall (it ignores what a
// sessionStart hook prints), relative to the workspace root.
const InstructionsFile = hostsettings.CopilotInstructionsFile

// MinBudget is the smallest budget a recall may be given: below it the
// section holds no observation, only a clipped footer.
const MinBudget = 100

// CheckBudget refuses a budget that is negative or too small to hold an
// observation (0 is [memory] max_tokens).
func CheckBudget(budget int) error {
	switch {
	case budget < 0:
		return errors.New("--budget must not be negative")
	case budget > 0 && budget < MinBudget:
		return fmt.Errorf("--budget %d is too small: a recall needs at least %d tokens (its footer alone takes about 60)", budget, MinBudget)
	}
	return nil
}

// For sets the host a recall is shaped for and whether it is a preview,
// from the form it is asked in: text and json are read by a person or a
// script (a preview, not counted); claude and codex, and the Copilot
// instructions file (write), inject it.
func (r *Request) For(format string, write bool) {
	r.Host = format
	if write {
		r.Host = "copilot"
	}
	r.Preview = !write && (format == "text" || format == "json")
}

// Off says why [memory] recalls nothing ("" when it recalls): memory
// switched off, or a recall budget of 0 and none asked for (budget).
func Off(m config.MemorySettings, budget int) string {
	switch {
	case !m.IsEnabled():
		return "Memory is disabled ([memory] enabled = false)."
	case m.Budget() <= 0 && budget == 0:
		return "Memory recall is off ([memory] max_tokens = 0); capture still runs."
	}
	return ""
}

// Section is the ## Memory Recall section a session starts with.
func (r Result) Section() string { return "## Memory Recall\n" + r.Body + "\n" }

// ShownDoc is one recalled observation as `memory recall --json` lists it.
type ShownDoc struct {
	Agent       string          `json:"agent"`
	Category    memory.Category `json:"category"`
	Full        bool            `json:"full"`
	ID          string          `json:"id"`
	IssueNumber int             `json:"issueNumber"`
	Score       float64         `json:"score"`
	Summary     string          `json:"summary"`
	Timestamp   string          `json:"timestamp"`
}

// ShownDocs lists what the recall showed, best first (never null).
func (r Result) ShownDocs() []ShownDoc {
	out := make([]ShownDoc, 0, len(r.Shown))
	for _, s := range r.Shown {
		out = append(out, ShownDoc{ID: s.Obs.ID, Agent: s.Obs.Agent, IssueNumber: s.Obs.IssueNumber,
			Category: s.Obs.Category, Summary: s.Obs.Summary, Timestamp: s.Obs.Timestamp,
			Score: memory.RoundScore(s.Score), Full: s.Full})
	}
	return out
}

// Doc is `memory recall --json`.
type Doc struct {
	Agent           string     `json:"agent"`
	DisplacedTokens int        `json:"displacedTokens"`
	Enabled         bool       `json:"enabled"`
	Issue           *int       `json:"issue"`
	More            int        `json:"more"`
	Recalled        []ShownDoc `json:"recalled"`
	jsonfile.Versioned
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// Doc is the recall of req as `memory recall --json` prints it: off says
// why none ran ("" when it did), text is the section.
func (r Result) Doc(req Request, off, text string) *Doc {
	var iss *int
	if req.HasIssue {
		iss = &req.Issue
	}
	return &Doc{Agent: req.Agent, Issue: iss, Enabled: off == "", Recalled: r.ShownDocs(), More: r.More,
		Tokens: r.Tokens, DisplacedTokens: r.Displaced, Text: text}
}

// WriteInstructions writes section (a recall for req) to InstructionsFile
// under root, where GitHub Copilot reads it, and returns the file's size.
func WriteInstructions(root string, req Request, section string) (int, error) {
	path := filepath.Join(root, filepath.FromSlash(InstructionsFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	who := req.Agent
	if req.HasIssue {
		who += fmt.Sprintf(" on issue #%d", req.Issue)
	}
	doc := "---\napplyTo: \"**\"\n---\n<!-- Written by `agentx-hook memory recall --write-instructions`; rewritten at every session end. -->\n" +
		"# What agentx remembers for " + who + "\n\n" + section
	if err := atomicfile.Write(path, []byte(doc), atomicfile.Options{ClearDead: true}); err != nil {
		return 0, err
	}
	return len(doc), nil
}

// WriteInstructionsLine writes the recall of req (text; off says why none
// ran, and then the file is left as it is) where GitHub Copilot reads it,
// and returns the line saying what was done.
func WriteInstructionsLine(root string, req Request, text, off string) (string, error) {
	if off != "" {
		return off + " " + InstructionsFile + " left as it is.", nil
	}
	n, err := WriteInstructions(root, req, text)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Wrote %s (%d characters).", InstructionsFile, n), nil
}
