package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// The artifact tools: the stage artifacts of an issue (PRD, ADR, SPEC),
// over the same store and views as `agentx-hook artifact list` and
// `artifact show`. They read; approving and acknowledging stay with the
// CLI, where a person or the owning agent acts.

type artifactListIn struct {
	Issue *int   `json:"issue,omitempty"`
	Step  string `json:"step,omitempty"`
	Stale bool   `json:"stale,omitempty"`
}

// ArtifactListResult is artifact_list's entries.
type ArtifactListResult struct {
	Outcome
	Artifacts []artifact.Entry `json:"artifacts"`
}

type artifactShowIn struct {
	ID string `json:"id" jsonschema:"e.g. PRD-42"`
}

// ArtifactShowResult is one artifact with its dependencies' state.
type ArtifactShowResult struct {
	Outcome
	Artifact *artifact.Entry `json:"artifact,omitempty"`
	// Text is the artifact as the CLI shows it (paths, statuses, what
	// went stale and the git diff to read).
	Text string `json:"text,omitempty"`
}

func (s *server) addArtifactTools(srv *mcp.Server) {
	add(srv, spec{name: "artifact_list", title: "Stage artifacts", readOnly: true, idempotent: true,
		desc: "Stage artifacts (PRD, ADR, SPEC) with status and staleness.",
		in:   map[string]bound{"issue": issueBound, "step": chars(1, 64)}}, s.artifactList)
	add(srv, spec{name: "artifact_show", title: "One stage artifact", readOnly: true, idempotent: true,
		desc: "One artifact, its upstream artifacts and what changed since.",
		in:   map[string]bound{"id": chars(1, 100)}}, s.artifactShow)
}

func (s *server) artifacts() *artifact.Store {
	return &artifact.Store{WS: s.o.WS, Locks: s.o.Router.Locks}
}

func (s *server) artifactList(_ context.Context, _ *mcp.CallToolRequest, in artifactListIn) (*ArtifactListResult, error) {
	flt := artifact.Filter{Step: in.Step, StaleOnly: in.Stale}
	var files []*artifact.File
	if in.Issue != nil {
		if *in.Issue <= 0 {
			return nil, errcode.New(errcode.InvalidInput, "issue must be a positive number, got %d", *in.Issue)
		}
		flt.Issue = *in.Issue
		f, err := s.artifacts().Load(*in.Issue)
		if err != nil {
			return nil, err
		}
		files = []*artifact.File{f}
	} else {
		var errs []error
		var err error
		if files, errs, err = s.artifacts().LoadAll(); err != nil {
			return nil, err
		}
		for _, e := range errs {
			s.o.Warn("artifact_list: %v", e)
		}
	}
	return &ArtifactListResult{Artifacts: artifact.List(files, flt)}, nil
}

func (s *server) artifactShow(_ context.Context, _ *mcp.CallToolRequest, in artifactShowIn) (*ArtifactShowResult, error) {
	if in.ID == "" {
		return nil, errcode.New(errcode.InvalidInput, "artifact_show needs an id (see artifact_list)")
	}
	f, a, err := s.artifacts().Locate(in.ID)
	if err != nil {
		return nil, err
	}
	e := f.View(a)
	return &ArtifactShowResult{Artifact: &e, Text: artifact.ShowText(e)}, nil
}
