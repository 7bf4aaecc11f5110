package session

import (
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
)

// Doc is `hook start|finish --json`: the result as one document, its keys
// in the order the scripts compare.
type Doc struct {
	Agent string `json:"agent"`
	// Blocked is --strict's verdict, in the one document (the exit status
	// is 1 and stderr says it too).
	Blocked     *errcode.Body    `json:"blocked,omitempty"`
	Escalations []ledger.Record  `json:"escalations"`
	Hook        string           `json:"hook"`
	Issue       *int             `json:"issue"`
	Monitor     []monitor.Action `json:"monitor"`
	Requests    []ledger.Record  `json:"requests"`
	jsonfile.Versioned
	Sections []Section `json:"sections"`
	Status   string    `json:"status"`
	Text     string    `json:"text"`
	// Untrusted: records shown that verify's checks find rewritten (id ->
	// why).
	Untrusted map[string]string `json:"untrusted,omitempty"`
	Waiting   []ledger.Record   `json:"waiting"`
}

// Doc is r as `hook --json` prints it; strict says the verdict stops the
// caller (--strict), and only then is Blocked in the document.
func (r *Result) Doc(strict bool) *Doc {
	var issue *int
	if r.HasIssue {
		issue = &r.Issue
	}
	var actions []monitor.Action
	if r.Report != nil {
		actions = r.Report.Actions
	}
	var blocked *errcode.Body
	if b := r.Blocked; b != nil && strict {
		blocked = &errcode.Body{Code: string(b.Code), Message: b.Error(), Hint: b.Hint}
	}
	return &Doc{Hook: r.Event, Agent: r.Agent, Blocked: blocked,
		Issue: issue, Status: r.Status, Waiting: jsonfile.List(r.Waiting), Requests: jsonfile.List(r.Requests),
		Escalations: jsonfile.List(r.Escalations), Monitor: jsonfile.List(actions), Sections: jsonfile.List(r.Sections), Text: r.Text, Untrusted: r.Untrusted}
}

// SkippedDoc is a hook's --json document when it did nothing: exit 0,
// and no "error" key (a failure document means a non-zero exit).
type SkippedDoc struct {
	Hook string `json:"hook"`
	jsonfile.Versioned
	Skipped string `json:"skipped"`
}
