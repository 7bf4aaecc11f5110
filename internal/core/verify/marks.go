package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// RecordMarks applies verify's checks of one ledger to the records a read
// path shows (`hook start`, `clarify --issue`, `clarify show`, the MCP
// clarify tools): the record hash, and the comparison with the checkpoint
// verify compares the ledgers with (compareBaseline: a record whose
// lifelong fields or thread entries differ from the checkpoint's copy,
// whatever hashes were written again, is RECORD_REWRITTEN). One place for
// the rule: these are verify's own functions, run on one ledger.
//
// The checkpoint is named by the caller (memanchor's view of the trail:
// the last checkpoint.create, or the one a later restore put back), so a
// read costs one blob hash of the ledger's bytes, and a read of the
// checkpoint's copy only when they differ.
type RecordMarks struct {
	repo   *gitstore.Repo
	tree   gitstore.Hash
	source string
}

// OpenRecordMarks prepares the checks against checkpoint id (tree) of the
// repository at root; with no checkpoint (tree "") or no repository only
// the record hash is checked.
func OpenRecordMarks(root, id, tree string) *RecordMarks {
	m := &RecordMarks{source: "checkpoint " + id}
	if tree == "" {
		return m
	}
	r, err := gitstore.Open(root)
	if err != nil {
		return m
	}
	m.repo, m.tree = r, gitstore.NewHash(tree)
	return m
}

// Of is the marks of ledger l of issue (as data, its file's bytes): record
// id -> why it is not to be believed. Entries changed under their own hash
// are the read paths' [TAMPERED] already, not repeated here.
func (m *RecordMarks) Of(issue int, data []byte, l *ledger.Ledger) map[string]string {
	out := map[string]string{}
	add := func(id, why string) {
		id, _, _ = strings.Cut(id, "#")
		if out[id] == "" {
			out[id] = why
		}
	}
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		if r.RecordIntegrity() == contenthash.Tampered {
			add(r.ID, CodeRecordHash+": a field the record keeps from its creation changed since it was made")
		}
	}
	if m == nil || m.repo == nil || data == nil {
		return out
	}
	rel := path.Join(clarificationsRel, fmt.Sprintf("issue-%d.json", issue))
	e, ok, err := m.repo.FileAt(m.tree, rel)
	if err != nil || !ok || e.Hash == gitstore.BlobHash(data) {
		return out // none in the checkpoint (a ledger made since), or the same bytes
	}
	base, err := m.repo.Blob(e.Hash)
	if err != nil {
		return out
	}
	c := &checker{ws: workspace.Workspace{}, rep: &Report{}, opt: Options{Baseline: &Baseline{Source: m.source, FS: oneFile{rel, base}}}}
	c.compareBaseline(rel, l, data, rel)
	for _, p := range c.rep.Problems {
		if p.Code == CodeRecordRewritten && p.ID != "" {
			add(p.ID, p.Code+": "+p.Message)
		}
	}
	return out
}

// MarkRecords is RecordMarks over the ledgers that hold recs, against the
// checkpoint the trail names (x, the anchors index: its incremental
// reading of the trail; nil for memanchor.For(ws), which saves nothing):
// record id -> why, for the records of recs only (nil: none).
func MarkRecords(ctx context.Context, x *memanchor.Index, ws workspace.Workspace, recs []ledger.Record) map[string]string {
	if len(recs) == 0 {
		return nil
	}
	if x == nil {
		x = memanchor.For(ws)
	}
	var id, tree string
	if rep, err := x.Check(ctx, nil); err == nil {
		id, tree = rep.BaselineID, rep.BaselineTree
	}
	m := OpenRecordMarks(ws.Root, id, tree)
	shown := map[string]bool{}
	var issues []int
	for _, r := range recs {
		shown[r.ID] = true
		if n, ok := clrIssue(r.ID); ok && !slices.Contains(issues, n) {
			issues = append(issues, n)
		}
	}
	out := map[string]string{}
	for _, n := range issues {
		data, err := os.ReadFile(ws.LedgerFile(n))
		if err != nil {
			continue
		}
		l, err := ledger.Decode(data)
		if err != nil {
			continue
		}
		for rid, why := range m.Of(n, data, l) {
			if shown[rid] {
				out[rid] = why
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// oneFile is an fs.FS of one file (the checkpoint's copy of a ledger).
type oneFile struct {
	name string
	data []byte
}

func (f oneFile) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: errors.ErrUnsupported}
}

func (f oneFile) ReadFile(name string) ([]byte, error) {
	if name != f.name {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return f.data, nil
}
