package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/doctor"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
)

// Finding is one doctor finding that needs something done: a warning or
// a failure, with the command that fixes it.
type Finding struct {
	Check   string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// MemoryStatus is what `memory stats` says of the store.
type MemoryStatus struct {
	Observations int      `json:"observations"`
	Tokens       int      `json:"tokens"`
	Issues       int      `json:"issues"`
	DiskBytes    int64    `json:"diskBytes"`
	Newest       string   `json:"newest,omitempty"`
	Warnings     []string `json:"warnings"`
}

// StatusResult is the state of this server's workspace as an agent can
// act on it: doctor's warnings and failures with their fixes, the memory
// store's size and warnings, and what the inbox holds.
type StatusResult struct {
	Outcome
	Agent string `json:"agent"`
	// Issue is the default issue of calls that name none (0: none).
	Issue int `json:"issue,omitempty"`
	// Healthy: doctor found no failure (its warnings may still be listed).
	Healthy  bool         `json:"healthy"`
	Findings []Finding    `json:"findings"`
	Memory   MemoryStatus `json:"memory"`
	// Waiting, Requests and Escalations count clarify_inbox's lists.
	Waiting     int `json:"waiting"`
	Requests    int `json:"requests"`
	Escalations int `json:"escalations"`
}

type statusIn struct{}

func (s *server) addStatusTool(srv *mcp.Server) {
	// openWorld: doctor's state-branch check asks the git remote (ls-remote).
	add(srv, spec{name: "status", title: "Workspace status", readOnly: true, openWorld: true,
		desc: "Doctor's findings with fixes, memory store figures, inbox counts."},
		s.status)
}

func (s *server) status(ctx context.Context, _ *mcp.CallToolRequest, _ statusIn) (*StatusResult, error) {
	out := &StatusResult{Agent: s.o.Agent, Healthy: true, Findings: []Finding{}}
	if s.o.Issue != nil {
		if n, ok := s.o.Issue(ctx); ok {
			out.Issue = n
		}
	}
	if s.o.Doctor != nil {
		for _, f := range s.o.Doctor(ctx) {
			if f.Status == doctor.StatusFail {
				out.Healthy = false
			}
			if f.Status == doctor.StatusWarn || f.Status == doctor.StatusFail {
				out.Findings = append(out.Findings, Finding{Check: f.Check, Status: f.Status, Message: f.Message, Fix: f.Fix})
			}
		}
	}
	st, err := s.o.Memory.Stats(ctx)
	if err != nil {
		return nil, err
	}
	out.Memory = MemoryStatus{Observations: st.TotalObservations, Tokens: st.TotalTokens, Issues: st.IssueCount, DiskBytes: st.DiskBytes,
		Warnings: append([]string{}, st.Warnings...)}
	if st.NewestTimestamp != nil {
		out.Memory.Newest = *st.NewestTimestamp
	}
	mon := monitor.New(s.o.Router)
	rep, err := mon.Check(ctx)
	if err != nil {
		return nil, err
	}
	waiting, requests := ledger.Inbox(mon.OpenNow(rep), s.o.Agent)
	out.Waiting, out.Requests, out.Escalations = len(waiting), len(requests), len(s.escalations(ctx))
	return out, nil
}
