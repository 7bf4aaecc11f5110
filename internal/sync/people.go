package sync

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// Mentions gives the GitHub mention ("@octo-lead") of a record's person
// target, or "" when it has none.
type Mentions func(to string) string

// PersonMentions mentions the people of cfg's [people] (issue 34). The
// handles come from the repository's own configuration, checked as
// GitHub logins or org/team slugs when it loaded: the one place a
// mirror's comment pings someone on purpose. Every text from a ledger
// stays neutralised.
func PersonMentions(cfg *config.Set) Mentions {
	if cfg == nil || len(cfg.Config.People) == 0 {
		return nil
	}
	return func(to string) string {
		name, ok := ledger.PersonTarget(to)
		if !ok || name == "" {
			return ""
		}
		p, ok := cfg.Person(name)
		if !ok {
			return ""
		}
		return p.Mention()
	}
}

// personAsked ends the comment of a question to a person with who is
// asked and the comment that answers: their mention when configured.
func personAsked(b *strings.Builder, rec *ledger.Record, mention Mentions) {
	name, ok := ledger.PersonTarget(rec.To)
	if !ok {
		return
	}
	who := "A person"
	if name != "" {
		who = bold(name)
	}
	if mention != nil {
		if m := mention(rec.To); m != "" {
			who = m
		}
	}
	fmt.Fprintf(b, "\n%s: your answer is asked. Comment `/clarify %s %s <answer>`.\n", who, protocol.Answer, rec.ID)
}
