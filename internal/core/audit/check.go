package audit

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Codes of the trail's problems (docs/verify.md lists every verify code).
const (
	// CodeTorn: a line cut short by a crash mid-append (information).
	CodeTorn = "AUDIT_TORN"
	// CodeEdited: a line whose content no longer matches its hash.
	CodeEdited = "AUDIT_LINE_EDITED"
	// CodeBadLine: a line that is not an audit entry at all.
	CodeBadLine = "AUDIT_BAD_LINE"
	// CodeReordered: a line that names as its predecessor a line that
	// comes after it.
	CodeReordered = "AUDIT_REORDERED"
	// CodeBroken: a line whose predecessor is nowhere (a line, or a whole
	// rotated file, was removed).
	CodeBroken = "AUDIT_CHAIN_BROKEN"
	// CodeDuplicate: the same line twice.
	CodeDuplicate = "AUDIT_DUPLICATE"
	// CodeUnreadable: a trail file that cannot be read (not a regular
	// file, too large, a read error).
	CodeUnreadable = "AUDIT_UNREADABLE"
	// CodeCut: lines an earlier copy of the trail (an Anchor: the last
	// checkpoint's) holds are gone from its end. The chain alone cannot
	// tell: no later line names the last one.
	CodeCut = "AUDIT_CUT"
	// CodeForeign: an Anchor shares no line with the trail (information:
	// a checkpoint fetched from another clone, or the trail replaced).
	CodeForeign = "AUDIT_ANCHOR_FOREIGN"
	// CodeHeadMissing: the line a checkpoint recorded as the chain's head
	// is not in the trail: the trail was rewritten (a whole new chain) or
	// replaced.
	CodeHeadMissing = "AUDIT_HEAD_MISSING"
)

// Anchor is an earlier copy of the trail's newest file, kept where the
// trail cannot rewrite it (the last checkpoint's tree): every line it
// holds must still be in the trail. It is what catches a cut of the
// trail's last lines, which leaves an intact chain.
type Anchor struct {
	// Source names the copy for messages ("checkpoint 1a2b3c4d5e").
	Source string
	Data   []byte
	// Head is the hash of the chain's last line when the copy was taken
	// (a checkpoint commit's Agentx-Audit-Head trailer; "" when it has
	// none): the trail must still hold that line.
	Head string
}

// Finding is one problem of the trail.
type Finding struct {
	Code string
	// Info marks what is reported but is not an error (a torn last line).
	Info bool
	Path string
	// Offset is the byte offset of the line (-1: the whole file).
	Offset int64
	Line   int
	Msg    string
}

// line is one audit line of the trail, where it is and its chain links.
type line struct {
	path   string
	offset int64
	no     int
	hash   string // the hash it states
	prev   string
}

// Check verifies the chain of the trail in dir: every line's own hash,
// and that every line's prev names an earlier line (the line before it,
// or after a merge of two machines' trails any earlier one); the first
// line of the first file may start the chain (prev "") or continue a file
// no longer there, which is reported. lines counts the entries read.
func Check(dir string, anchors ...Anchor) (findings []Finding, lines int, err error) {
	files, err := Files(dir)
	if err != nil {
		return nil, 0, err
	}
	findings, lines = check(files, readFile, anchors)
	return findings, lines, nil
}

// CheckOps is Check, and from the same reading of the files the entries
// of the operations ops, in the trail's order (verify looks for the
// records the trail says were made).
func CheckOps(dir string, ops []string, anchors ...Anchor) (entries []Entry, findings []Finding, lines int, err error) {
	findings, lines, err = CheckOpsEach(dir, ops, func(e *Entry) { entries = append(entries, *e) }, anchors...)
	return entries, findings, lines, err
}

// CheckOpsEach is CheckOps handing each line of ops to fn, in the
// chain's order, instead of returning them all: a trail of a million
// observations' lines need not be held decoded at once (issue 35). e is
// fn's to keep.
func CheckOpsEach(dir string, ops []string, fn func(e *Entry), anchors ...Anchor) (findings []Finding, lines int, err error) {
	files, err := Files(dir)
	if err != nil {
		return nil, 0, err
	}
	pats := make([][]byte, len(ops))
	for i, op := range ops {
		pats[i] = []byte(`"op":` + strconv.Quote(op) + `,`)
	}
	// Each file is checked and its lines of ops handed on as it is read,
	// from the one decoding the check makes: the trail is never held
	// whole (1M observations: 162 MB of lines, issue 35).
	findings, lines = checkEach(files, readFile, anchors, func(raw []byte, e *Entry, terminated bool) {
		if !terminated {
			return
		}
		for _, p := range pats {
			if bytes.Contains(raw, p) {
				fn(e)
				return
			}
		}
	})
	return findings, lines, nil
}

// CheckFS is Check of the trail in directory dir of fsys (a commit of the
// state branch: the Action's trail in state/, each clone's in
// state/audit.d/ID/). Paths in findings are fsys's.
func CheckFS(fsys fs.FS, dir string) (findings []Finding, lines int, err error) {
	names, err := filesFS(fsys, dir)
	if err != nil {
		return nil, 0, err
	}
	findings, lines = check(names, readerFS(fsys), nil)
	return findings, lines, nil
}

// filesFS is Files of directory dir of fsys: its trail's files in the
// chain's order (none when dir does not exist).
func filesFS(fsys fs.FS, dir string) ([]string, error) {
	return listTrail(dir, func(d string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, d) }, path.Join)
}

// readerFS is readFile for a trail file of fsys: only a regular file
// within the state size limit is read.
func readerFS(fsys fs.FS) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		fi, err := fs.Lstat(fsys, p)
		switch {
		case err != nil:
			return nil, err
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s is not a regular file (%s)", p, fi.Mode().Type())
		case fi.Size() > atomicfile.StateLimit:
			return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", p, fi.Size(), atomicfile.StateLimit)
		}
		return fs.ReadFile(fsys, p)
	}
}

// check reads files (in the chain's order) with read and checks each
// line's hash and the chain across them.
func check(files []string, read func(string) ([]byte, error), anchors []Anchor) (findings []Finding, lines int) {
	return checkEach(files, read, anchors, nil)
}

// checkEach is check reading one file at a time: each is dropped once
// its lines are checked. visit, when set, is handed every line that
// decodes (e is visit's to keep).
func checkEach(files []string, read func(string) ([]byte, error), anchors []Anchor, visit func(raw []byte, e *Entry, terminated bool)) (findings []Finding, lines int) {
	var all []line
	for _, p := range files {
		data, err := read(p)
		if err != nil {
			findings = append(findings, Finding{Code: CodeUnreadable, Path: p, Offset: -1, Msg: err.Error()})
			continue
		}
		all, findings = readLines(p, data, all, findings, visit)
	}
	return checkLines(all, files, anchors, findings)
}

// loaded is one trail file as read (err: it could not be).
type loaded struct {
	path string
	data []byte
	err  error
}

// load reads the trail's files (in the chain's order) with read, once for
// both a check and a history.
func load(files []string, read func(string) ([]byte, error)) []loaded {
	out := make([]loaded, len(files))
	for i, p := range files {
		data, err := read(p)
		out[i] = loaded{path: p, data: data, err: err}
	}
	return out
}

// checkLoaded is check over files already read.
func checkLoaded(files []loaded, anchors []Anchor) (findings []Finding, lines int) {
	var all []line
	for _, f := range files {
		if f.err != nil {
			findings = append(findings, Finding{Code: CodeUnreadable, Path: f.path, Offset: -1, Msg: f.err.Error()})
			continue
		}
		all, findings = readLines(f.path, f.data, all, findings, nil)
	}
	paths := make([]string, len(files))
	for i := range files {
		paths[i] = files[i].path
	}
	return checkLines(all, paths, anchors, findings)
}

// checkLines checks the chain of the lines all of files, and the anchors.
func checkLines(all []line, files []string, anchors []Anchor, findings []Finding) ([]Finding, int) {
	findings = checkChain(all, findings)
	newest := ""
	if len(files) > 0 {
		newest = files[len(files)-1]
	}
	for _, a := range anchors {
		findings = checkAnchor(all, a, newest, findings)
	}
	return findings, len(all)
}

// checkAnchor reports the lines of a that all lacks at its end: the
// lines after the last of a's lines still in the trail. A trail that
// shares no line with a is information only when it has lines (another
// clone's checkpoint), and a cut when it has none (the trail deleted).
func checkAnchor(all []line, a Anchor, newest string, findings []Finding) []Finding {
	have := make(map[string]bool, len(all))
	for _, l := range all {
		have[l.hash] = true
	}
	var held [][]byte
	atomicfile.EachLine(a.Data, func(raw []byte, _ int64, _ int, terminated bool) {
		if computed, stated, ok := LineHash(raw); ok && terminated && computed == stated {
			held = append(held, raw)
		}
	})
	last := -1
	for i := len(held) - 1; i >= 0; i-- {
		if _, h, _ := LineHash(held[i]); have[h] {
			last = i
			break
		}
	}
	if newest == "" {
		newest = "audit.jsonl"
	}
	// The head the checkpoint recorded: a trail that holds none of the
	// copy's lines and not that head was rewritten as a whole chain (the
	// chain alone verifies), not fetched from elsewhere.
	headGone := a.Head != "" && len(all) > 0 && !have[a.Head]
	gone := len(held) - 1 - last
	if gone == 0 && !headGone {
		return findings
	}
	f := Finding{Code: CodeCut, Path: newest, Offset: -1}
	switch {
	case headGone && (last < 0 || gone == 0):
		f.Code = CodeHeadMissing
		f.Msg = fmt.Sprintf("%s recorded the trail's head %s, a line the trail no longer holds: the trail was rewritten or replaced", a.Source, shorten.Hash(a.Head))
	case last < 0 && len(all) > 0:
		f.Code, f.Info = CodeForeign, true
		f.Msg = fmt.Sprintf("%s holds a trail that shares no line with this one (a checkpoint from another clone, or this trail replaced): not compared", a.Source)
	case last < 0:
		f.Msg = fmt.Sprintf("the trail is gone: %s holds %d lines of it", a.Source, len(held))
	default:
		first, _ := Decode(held[last+1])
		f.Msg = fmt.Sprintf("%d line%s that %s holds %s gone from the end of the trail (the first: %s at %s): the trail was cut",
			gone, plural(gone), a.Source, isAre(gone), first.Op, first.Time)
	}
	return append(findings, f)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// NewestFS returns the path and content of the newest file of the trail
// in directory dir of fsys (a checkpoint's tree), for an Anchor; no path
// when it has none.
func NewestFS(fsys fs.FS, dir string) (string, []byte, error) {
	names, err := filesFS(fsys, dir)
	if err != nil || len(names) == 0 {
		return "", nil, err
	}
	p := names[len(names)-1]
	data, err := readerFS(fsys)(p)
	return p, data, err
}

// readLines splits one file into lines, checks each line's own hash and
// appends the lines that carry one to all.
func readLines(p string, data []byte, all []line, findings []Finding, visit func(raw []byte, e *Entry, terminated bool)) ([]line, []Finding) {
	atomicfile.EachLine(data, func(raw []byte, off int64, no int, terminated bool) {
		if len(bytes.TrimSpace(raw)) == 0 {
			return
		}
		l := line{path: p, offset: off, no: no}
		computed, stated, hasHash := LineHash(raw)
		e, perr := Decode(raw)
		if perr == nil && visit != nil {
			visit(raw, &e, terminated)
		}
		switch {
		case hasHash && perr == nil:
			l.hash, l.prev = stated, e.Prev
			if computed == stated {
				break
			}
			findings = append(findings, Finding{Code: CodeEdited, Path: p, Offset: off, Line: no,
				Msg: fmt.Sprintf("line %d was changed after it was written (its hash says %s, its content hashes to %s)", no, shorten.Hash(stated), shorten.Hash(computed))})
		case !terminated || !hasHash && perr != nil:
			// The start of a line whose append was cut short: a later
			// append added the newline and chained past it.
			findings = append(findings, Finding{Code: CodeTorn, Info: true, Path: p, Offset: off, Line: no,
				Msg: fmt.Sprintf("line %d is cut short (an append interrupted by a crash); the chain continues past it", no)})
			return
		default:
			findings = append(findings, Finding{Code: CodeBadLine, Path: p, Offset: off, Line: no,
				Msg: fmt.Sprintf("line %d is not an audit entry", no)})
			return
		}
		all = append(all, l)
	})
	return all, findings
}

// readFile reads one trail file, refusing a symlink (it could lead
// anywhere outside the workspace) and anything but a regular file.
func readFile(p string) ([]byte, error) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symlink; the audit trail is read only from regular files", p)
	}
	return atomicfile.ReadRegular(p, atomicfile.StateLimit)
}

// checkChain checks that every line's prev names an earlier line.
func checkChain(all []line, findings []Finding) []Finding {
	at := make(map[string]int, len(all))
	for i, l := range all {
		if _, dup := at[l.hash]; !dup {
			at[l.hash] = i
		}
	}
	for i, l := range all {
		f := Finding{Path: l.path, Offset: l.offset, Line: l.no}
		j, found := at[l.prev]
		switch {
		case at[l.hash] != i:
			first := all[at[l.hash]]
			f.Code, f.Msg = CodeDuplicate, fmt.Sprintf("line %d repeats line %d of %s", l.no, first.no, filepath.Base(first.path))
		case l.prev == "" && i == 0, found && j < i:
			continue
		case l.prev == "":
			f.Code, f.Msg = CodeBroken, fmt.Sprintf("line %d starts a new chain in the middle of the trail", l.no)
		case found:
			f.Code, f.Msg = CodeReordered, fmt.Sprintf("line %d follows line %d of %s, which comes after it", l.no, all[j].no, filepath.Base(all[j].path))
		case i == 0:
			f.Code, f.Msg = CodeBroken, "the trail's first line continues a line that is not there (an older rotated file was removed?)"
		default:
			f.Code, f.Msg = CodeBroken, fmt.Sprintf("line %d follows a line that is not there (%s): a line was removed or edited before it", l.no, shorten.Hash(l.prev))
		}
		findings = append(findings, f)
	}
	return findings
}
