package hookcmd

import (
	"context"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/artifact/synth"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

const artifactGenerateUsage = `artifact generate --issues N [--per-issue K] [--json]

Writes synthetic artifact ledgers for issues 1..N (K of PRD, UX, ADR, SPEC
each, at most 4; every fifth issue's PRD changed since its downstream
artifacts were written, so they are stale), for benchmarks and for trying
agentx at scale (a large project: --issues 500 --per-issue 4 is 2,000
artifacts). It refuses a workspace that already has artifact
ledgers: synthetic data never mixes with real artifacts.
  agentx-hook --root /tmp/big artifact generate --issues 500`

type artifactGenerateOptions struct {
	Issues, PerIssue int
	jsonFlag
}

func parseArtifactGenerate(a *App, args []string) (*artifactGenerateOptions, error) {
	o := &artifactGenerateOptions{}
	flags := newFlags(a, "artifact generate", artifactGenerateUsage)
	flags.IntVar(&o.Issues, "issues", 0, "issues 1..`N`")
	flags.IntVar(&o.PerIssue, "per-issue", 4, "artifacts per issue, `K` of 1..4")
	o.register(flags)
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	if o.Issues < 1 || o.Issues > 100_000 {
		return o, usagef("artifact generate: --issues must be 1..100000 (got %d)", o.Issues)
	}
	if o.PerIssue < 1 || o.PerIssue > 4 {
		return o, usagef("artifact generate: --per-issue must be 1..4 (got %d)", o.PerIssue)
	}
	return o, nil
}

// artifactGenerateDoc is `artifact generate --json`.
type artifactGenerateDoc struct {
	Artifacts int    `json:"artifacts"`
	Issues    int    `json:"issues"`
	Message   string `json:"message"`
	jsonfile.Versioned
}

func runArtifactGenerate(_ context.Context, a *App, o *artifactGenerateOptions) error {
	existing, err := a.Artifacts().Issues()
	if err != nil {
		return err
	}
	if len(existing) > 0 {
		return errcode.New(errcode.InvalidInput, "%s already holds artifact ledgers (%d issues): synthetic ones are written only into a workspace without any", a.Workspace().ArtifactsDir(), len(existing)).
			WithHint("generate into a scratch workspace: agentx-hook --root /tmp/big init, then --root /tmp/big artifact generate")
	}
	n, err := synth.Generate(a.Workspace(), o.Issues, o.PerIssue)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("generated %d artifacts over %d issues in %s", n, o.Issues, a.Workspace().ArtifactsDir())
	return a.emit(o.JSON, &artifactGenerateDoc{Artifacts: n, Issues: o.Issues, Message: msg}, msg+"\n")
}
