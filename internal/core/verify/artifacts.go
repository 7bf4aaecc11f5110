package verify

import (
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The artifact ledgers' problem codes (docs/verify.md).
const (
	CodeArtifactCorrupt     = "ARTIFACT_LEDGER_CORRUPT"     // does not parse
	CodeArtifactIssue       = "ARTIFACT_ISSUE_MISMATCH"     // issueNumber is not the file name's
	CodeArtifactDuplicate   = "ARTIFACT_ID_DUPLICATE"       // two entries under one id
	CodeArtifactStatus      = "ARTIFACT_STATUS_UNKNOWN"     // not draft, in-review, approved, rejected or stale
	CodeArtifactHash        = "ARTIFACT_HASH_MISMATCH"      // an entry changed since agentx wrote it
	CodeArtifactBlobMissing = "ARTIFACT_BLOB_MISSING"       // its content is not in the repository
	CodeArtifactDependency  = "ARTIFACT_DEPENDENCY_UNKNOWN" // dependsOn names an artifact the ledger does not hold (warning)
)

// artifacts checks the artifact ledgers: each parses, names its issue,
// holds each id once with a known status and an intact hash, depends on
// artifacts it holds, and (in a git repository) points at blobs the
// repository has: an artifact whose content is gone cannot be shown, and
// the diff that explains its staleness cannot be read.
func (c *checker) artifacts() {
	jobs := c.files(c.ws.ArtifactsDir(), workspace.LedgerIssue)
	if len(jobs) == 0 {
		return
	}
	var repo *gitstore.Repo
	if c.fsys == nil {
		repo, _ = gitstore.Open(c.ws.Root) // outside git: no blob to look for
	}
	for _, j := range jobs {
		data, ok := c.read(j.path)
		if !ok {
			continue
		}
		rel := c.rel(j.path)
		f, err := artifact.Parse(rel, data, j.issue)
		if err != nil {
			c.add(Problem{Code: CodeArtifactCorrupt, Severity: Error, Path: rel, Offset: jsonfile.CorruptOffset(data, err), Message: err.Error()})
			continue
		}
		c.rep.Counts.Artifacts += len(f.Artifacts)
		if f.IssueNumber != j.issue {
			c.add(Problem{Code: CodeArtifactIssue, Severity: Error, Path: rel, Offset: -1,
				Message: fmt.Sprintf("issueNumber is %d in the ledger of issue #%d", f.IssueNumber, j.issue)})
		}
		seen := map[string]bool{}
		for i := range f.Artifacts {
			c.artifact(rel, data, j.issue, f, &f.Artifacts[i], seen, repo)
		}
	}
}

// artifact checks one entry of f (seen: the ids met so far in the file).
func (c *checker) artifact(rel string, data []byte, issue int, f *artifact.File, a *artifact.Artifact, seen map[string]bool, repo *gitstore.Repo) {
	p := func(code string, sev Severity, format string, args ...any) {
		c.add(Problem{Code: code, Severity: sev, Path: rel, ID: a.ID, Offset: idOffset(data, a.ID, 0),
			Message: fmt.Sprintf("artifact %s of issue #%d: ", a.ID, issue) + fmt.Sprintf(format, args...)})
	}
	if seen[a.ID] {
		p(CodeArtifactDuplicate, Error, "the id is held twice")
	}
	seen[a.ID] = true
	if a.Status != "" && !a.Status.Valid() {
		p(CodeArtifactStatus, Error, "status %q is none of draft, in-review, approved, rejected, stale", a.Status)
	}
	switch a.Integrity() {
	case contenthash.Tampered:
		p(CodeArtifactHash, Error, "changed since agentx wrote it (its %s does not match)", contenthash.Key)
	case contenthash.Unhashed:
		c.rep.Counts.Unhashed++
	}
	for _, d := range a.DependsOn {
		if f.Find(d.ID) == nil && !f.Tombstones.Has(artifact.TombstoneKind, d.ID) {
			p(CodeArtifactDependency, Warning, "depends on %s, which the ledger does not hold", d.ID)
		}
	}
	if repo != nil && a.Blob != "" {
		if h := gitstore.NewHash(a.Blob); h.String() != a.Blob || !repo.Has(h) {
			p(CodeArtifactBlobMissing, Error, "blob %s is not in the repository (%s)", a.Blob, a.Path)
		}
	}
}
