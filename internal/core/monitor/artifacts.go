package monitor

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// ArtifactNotice is one upstream change the monitor announced: the stale
// artifact's finding and the clarification that carries it ("" when the
// workflow's scope allowed none: the finding is still said).
type ArtifactNotice struct {
	artifact.Finding
	Clarification string `json:"clarification,omitempty"`
	From          string `json:"from,omitempty"`
	To            string `json:"to,omitempty"`
}

// Line is the notice as the monitor prints it.
func (n ArtifactNotice) Line() string {
	if n.Clarification == "" {
		return fmt.Sprintf("monitor: %s (no clarification: the workflow lets neither %s nor the upstream's agent ask the other)", n.Finding.String(), n.Agent)
	}
	return fmt.Sprintf("monitor: %s -> %s asked %s (%s, non-blocking)", n.Finding.String(), n.From, n.To, n.Clarification)
}

// NotifyStale finds the artifacts an upstream change made stale and, once
// per change (the upstream's blob, recorded in the artifact's notified
// list, which travels and merges with the ledger), opens a non-blocking
// clarification between the stale artifacts' owner and the upstream's
// agent: from the upstream's agent to the owner when the workflow lets it
// ask, else from the owner to the upstream's agent, so the owner is in the
// conversation either way. One clarification covers every artifact of one
// owner that one change made stale (ADR-42 and SPEC-42 against PRD-42).
// Findings already announced are not returned.
func (m *Monitor) NotifyStale(ctx context.Context, store *artifact.Store) ([]ArtifactNotice, []error) {
	sc, err := store.Scan()
	if err != nil {
		return nil, []error{err}
	}
	files, errs := unannounced(store, sc)
	out, more := m.notify(ctx, store, files)
	return out, append(append(sc.Warnings, errs...), more...)
}

// unannounced reads whole the ledgers whose summary holds a change not
// announced yet: the only ones notify writes to.
func unannounced(store *artifact.Store, sc *artifact.Scanned) ([]*artifact.File, []error) {
	var files []*artifact.File
	var errs []error
	for i := range sc.Summaries {
		if !sc.Summaries[i].Unnotified {
			continue
		}
		f, err := store.Load(sc.Summaries[i].Issue)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, f)
	}
	return files, errs
}

// NotifyIssue is NotifyStale for one issue's ledger: what `hook start`
// runs for the session's issue (one file read), before it lists what
// waits, so the owner of a stale artifact sees the clarification at once.
func (m *Monitor) NotifyIssue(ctx context.Context, store *artifact.Store, issue int) ([]ArtifactNotice, []error) {
	f, err := store.Load(issue)
	if err != nil {
		return nil, []error{err}
	}
	if len(f.Artifacts) == 0 {
		return nil, nil
	}
	return m.notify(ctx, store, []*artifact.File{f})
}

// notify is NotifyStale over ledgers already read.
func (m *Monitor) notify(ctx context.Context, store *artifact.Store, files []*artifact.File) ([]ArtifactNotice, []error) {
	var errs []error
	var out []ArtifactNotice
	now := clock.Format(m.Router.Clock.Now())
	for _, f := range files {
		type group struct {
			up    *artifact.Artifact
			owner *artifact.Artifact
			fds   []artifact.Finding
		}
		var groups []*group
		byKey := map[string]*group{}
		for i := range f.Artifacts {
			a := &f.Artifacts[i]
			for _, fd := range f.StaleDeps(a) {
				if a.NotifiedOf(fd.Upstream, fd.NewBlob) {
					continue
				}
				k := a.Agent + "\x00" + fd.Upstream + "\x00" + fd.NewBlob
				g := byKey[k]
				if g == nil {
					g = &group{up: f.Find(fd.Upstream), owner: a}
					byKey[k] = g
					groups = append(groups, g)
				}
				g.fds = append(g.fds, fd)
			}
		}
		for _, g := range groups {
			n := m.openStale(ctx, g.owner, g.up, g.fds)
			for _, fd := range g.fds {
				o, err := store.MarkNotified(ctx, fd, n.Clarification, now)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				m.auditNotice(ctx, o, fd, n.Clarification)
				n.Finding = fd
				out = append(out, n)
			}
		}
	}
	return out, errs
}

func (m *Monitor) openStale(ctx context.Context, a, up *artifact.Artifact, fds []artifact.Finding) ArtifactNotice {
	n := ArtifactNotice{Finding: fds[0]}
	if up == nil || up.Agent == "" || a.Agent == "" || up.Agent == a.Agent {
		return n
	}
	ids := make([]string, len(fds))
	for i, fd := range fds {
		ids[i] = fd.Artifact
	}
	list := strings.Join(ids, ", ")
	fd := fds[0]
	topic := fmt.Sprintf("%s changed: does %s still hold?", fd.Upstream, list)
	q := fmt.Sprintf("%s (%s) changed in %s after %s was written against it. Read the change with `%s`; "+
		"then `agentx-hook artifact ack ID` for each that still holds, or rewrite it.",
		fd.Upstream, up.Path, artifact.Short(fd.Commit), list, fd.Diff)
	for _, dir := range [][2]string{{up.Agent, a.Agent}, {a.Agent, up.Agent}} {
		res, err := m.Router.Request(ctx, router.RequestInput{Issue: fd.Issue, From: dir[0], To: dir[1],
			Topic: topic, Question: q, Blocking: false, Workflow: a.Workflow})
		var ec *errcode.Error
		if err != nil && errors.As(err, &ec) && (ec.Code == errcode.ScopeViolation || ec.Code == errcode.InvalidInput) {
			continue
		}
		if err != nil || res == nil {
			return n
		}
		n.Clarification, n.From, n.To = res.Record.ID, dir[0], dir[1]
		return n
	}
	return n
}

// CheckArtifacts is the artifact half of a check: NotifyStale (when
// notify is set), then every stale artifact left, both into rep. What
// could not be read is a warning of rep.
//
// In GitHub Mode the caller notifies only where the state was just
// pulled or is about to be read whole (`monitor`, after a sync): a git
// hook of a clone that has not pulled the other clones' marks would
// announce a change they already announced.
func (m *Monitor) CheckArtifacts(ctx context.Context, store *artifact.Store, rep *Report, notify bool) {
	// One scan (the ledgers nobody wrote since the last one come from
	// its index); only the ledgers with a change not yet announced are
	// read whole. The marks notify writes change no staleness, so the
	// findings come from the same scan.
	sc, err := store.Scan()
	if err != nil {
		rep.Warnings = append(rep.Warnings, err)
		return
	}
	errs := sc.Warnings
	if notify {
		files, more := unannounced(store, sc)
		errs = append(errs, more...)
		notices, more := m.notify(ctx, store, files)
		rep.ArtifactNotices = append(rep.ArtifactNotices, notices...)
		errs = append(errs, more...)
	}
	for i := range sc.Summaries {
		rep.StaleArtifacts = append(rep.StaleArtifacts, sc.Summaries[i].Findings...)
	}
	rep.Warnings = append(rep.Warnings, errs...)
}

// ArtifactLines are the check's artifact lines: what it announced, then
// the stale artifacts announced before.
func (r *Report) ArtifactLines() []string {
	var out []string
	said := map[string]bool{}
	for _, n := range r.ArtifactNotices {
		out = append(out, n.Line())
		said[n.Artifact+"\x00"+n.Upstream] = true
	}
	for _, f := range r.StaleArtifacts {
		if !said[f.Artifact+"\x00"+f.Upstream] {
			out = append(out, "monitor: "+f.String())
		}
	}
	return out
}

// auditNotice appends the audit line of a notice recorded (o: the
// artifact's hashes before and after); a failure is the router's warning.
func (m *Monitor) auditNotice(ctx context.Context, o artifact.Outcome, fd artifact.Finding, clr string) {
	if m.Router.Audit == nil || o.Before == o.After {
		return
	}
	e := audit.Entry{Actor: "monitor", Op: "artifact.notify", Issue: fd.Issue, IDs: []string{fd.Artifact},
		Before: map[string]string{fd.Artifact: o.Before}, After: map[string]string{fd.Artifact: o.After},
		Detail: fmt.Sprintf("%s changed to blob %s; clarification %s", fd.Upstream, artifact.Short(fd.NewBlob), clr)}
	if err := m.Router.Audit.Append(ctx, e); err != nil && m.Router.Warn != nil {
		m.Router.Warn("audit trail: %v", err)
	}
}
