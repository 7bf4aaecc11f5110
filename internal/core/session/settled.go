package session

import "context"

// catchUp stores, before recall reads memory, the decisions of the issue's
// resolved clarifications memory lacks: a resolution that came through
// GitHub (the Action's ingest has no memory store) or whose resolve did
// not get to its side effect. Resolved threads are shown to the agent
// only as these decisions, through recall, never as the whole thread.
func (s *session) catchUp(ctx context.Context) {
	if s.d.Settle == nil || !s.in.HasIssue || !s.memoryEnabled() {
		return
	}
	if _, err := s.d.Settle(ctx, s.in.Issue); err != nil {
		s.warn("agentx hook start: decisions of resolved clarifications not kept in memory: %v", err)
	}
}
