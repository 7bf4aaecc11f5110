package verify

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
)

// stateFiles checks agent-status.json, events.jsonl and the audit trail.
func (c *checker) stateFiles() {
	dir := c.ws.StateDir()
	for _, e := range c.listDir(dir) {
		c.transient(dir, e.Name())
	}
	if data, ok := c.read(c.ws.AgentStatusFile()); ok {
		if _, err := agentstatus.Decode(c.ws.AgentStatusFile(), data); err != nil {
			c.add(Problem{Code: CodeStatusCorrupt, Severity: Error, Path: c.rel(c.ws.AgentStatusFile()), Offset: jsonfile.CorruptOffset(data, err), Message: err.Error()})
		}
	}
	if data, ok := c.read(c.ws.EventsFile()); ok {
		c.jsonLines(c.ws.EventsFile(), data, CodeEventsCorrupt, CodeEventsTorn)
	}
	// One reading of the trail serves the requests' check and the
	// observations' anchoring (anchored.go).
	// The lines are folded into the anchors as they are read, never held
	// all at once (issue 35); only the requests' and restores' are kept.
	// The anchors are kept in fixed-size rows (anchorset.go), not the
	// view's map of strings.
	view, anchors := memanchor.NewView(), newAnchorSet()
	view.Keep = anchors.keep
	var made []audit.Entry
	var seq int64
	findings, lines, err := audit.CheckOpsEach(dir, append([]string{"clarify.request", "clarify.ask", "checkpoint.restore"}, anchorOpNames()...), func(e *audit.Entry) {
		anchors.times.set(seq, e.Time)
		view.Fold(seq, e, nil)
		seq++
		switch e.Op {
		case "clarify.request", "clarify.ask", "checkpoint.restore":
			made = append(made, *e)
		}
	}, c.opt.AuditAnchors...)
	c.rep.Counts.AuditLines = lines
	c.addTrail(dir, findings, err, c.rel)
	c.requestsGone(made)
	if err == nil && seq > 0 {
		c.view, c.anchors = view, anchors
	}
}

// addTrail reports what checking the audit trail in dir found (err: the
// trail could not be listed), paths named by rel.
func (c *checker) addTrail(dir string, findings []audit.Finding, err error, rel func(string) string) {
	if err != nil {
		c.add(Problem{Code: audit.CodeUnreadable, Severity: Error, Path: rel(dir), Offset: -1, Message: err.Error()})
	}
	for _, f := range findings {
		sev := Error
		if f.Info {
			sev = Info
		}
		c.add(Problem{Code: f.Code, Severity: sev, Path: rel(f.Path), Offset: f.Offset, Line: f.Line, Message: f.Msg})
	}
}

// jsonLines checks a JSON-lines log: every line a JSON value; a last line
// without its newline that does not parse is a torn append (information).
func (c *checker) jsonLines(path string, data []byte, corrupt, torn string) {
	atomicfile.EachLine(data, func(line []byte, off int64, no int, terminated bool) {
		switch {
		case len(bytes.TrimSpace(line)) == 0 || json.Valid(line):
		case !terminated:
			c.add(Problem{Code: torn, Severity: Info, Path: c.rel(path), Offset: off, Line: no,
				Message: "the last line is cut short (an append interrupted); the next append starts a new line"})
		default:
			c.add(Problem{Code: corrupt, Severity: Error, Path: c.rel(path), Offset: off, Line: no, Message: fmt.Sprintf("line %d is not JSON", no)})
		}
	})
}

// idOffset finds where the object with id starts in data (its "id"
// member), or -1.
func idOffset(data []byte, id string, from int64) int64 {
	if from < 0 || from > int64(len(data)) {
		from = 0
	}
	q := jsonfile.AppendString(nil, id)
	for _, pat := range [][]byte{append([]byte(`"id": `), q...), append([]byte(`"id":`), q...), q} {
		if i := bytes.Index(data[from:], pat); i >= 0 {
			return from + int64(i)
		}
	}
	return -1
}
