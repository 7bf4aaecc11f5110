package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

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
	c.trail(dir)
}

// trailReadings is how many times the trail is read at most when a
// writer rotates it meanwhile (trail).
const trailReadings = 3

// trail checks the audit trail in dir. One reading serves the requests'
// check and the observations' anchoring (anchored.go). The lines are
// folded into the anchors as they are read, never held all at once
// (issue 35); only the requests' and restores' are kept. The anchors are
// kept in fixed-size rows (anchorset.go), not the view's map of strings.
//
// The files are read one after another with no lock, as writers append
// under each file's own flock: a writer that rotates the trail (a new
// month, or the current file full) between the listing and the reading
// of the current file leaves that file's first line continuing a file
// the listing did not hold, a broken chain that is not there. A reading
// with findings whose listing changed while it read is taken again, from
// a new listing; a rotation is monthly or every few megabytes, so a
// second reading nearly always stands, and the last one's findings are
// reported whatever they are.
func (c *checker) trail(dir string) {
	during := c.opt.duringTrail
	for reading := 1; ; reading++ {
		before, _ := audit.Files(dir)
		view, anchors := memanchor.NewView(), newAnchorSet()
		view.Keep = anchors.keep
		var made []audit.Entry
		var seq int64
		findings, lines, err := audit.CheckOpsEach(dir, append([]string{"clarify.request", "clarify.ask", "checkpoint.restore"}, anchorOpNames()...), func(e *audit.Entry) {
			if during != nil {
				during()
				during = nil
			}
			anchors.times.set(seq, e.Time)
			view.Fold(seq, e, nil)
			seq++
			switch e.Op {
			case "clarify.request", "clarify.ask", "checkpoint.restore":
				made = append(made, *e)
			}
		}, c.opt.AuditAnchors...)
		if len(findings) > 0 && err == nil && reading < trailReadings {
			if after, _ := audit.Files(dir); !slices.Equal(before, after) {
				continue
			}
		}
		c.rep.Counts.AuditLines = lines
		c.addTrail(dir, findings, err, c.rel)
		c.requestsGone(made)
		if err == nil && seq > 0 {
			c.view, c.anchors = view, anchors
		}
		return
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
