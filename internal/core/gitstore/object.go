package gitstore

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Entry is one file of a flattened tree.
type Entry struct {
	Hash Hash
	Mode FileMode
}

// Signature is a commit's author or committer.
type Signature struct {
	Name, Email string
	When        time.Time
}

// Commit is the part of a commit object agentx reads and writes.
type Commit struct {
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// BlobHash is the object id git gives data as a blob
// (git hash-object --stdin).
func BlobHash(data []byte) Hash { return hashObject(plumbing.BlobObject, data) }

// header returns the value of the first header line key of a commit or
// tag object.
func header(data []byte, key string) (string, bool) {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if len(line) == 0 {
			return "", false
		}
		if v, ok := bytes.CutPrefix(line, []byte(key+" ")); ok {
			return string(v), true
		}
		data = rest
	}
	return "", false
}

// ReadCommit reads commit h (git cat-file commit H).
func (r *Repo) ReadCommit(h Hash) (Commit, error) {
	data, err := r.read(plumbing.CommitObject, h)
	if err != nil {
		return Commit{}, err
	}
	c, err := decodeCommit(data)
	if err != nil {
		return Commit{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

func decodeCommit(data []byte) (Commit, error) {
	var c Commit
	headers, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(headers), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			if len(val) != 40 || !plumbing.IsHash(val) {
				return c, fmt.Errorf("bad tree %q", val)
			}
			c.Tree = plumbing.NewHash(val)
		case "parent":
			if len(val) != 40 || !plumbing.IsHash(val) {
				return c, fmt.Errorf("bad parent %q", val)
			}
			c.Parents = append(c.Parents, plumbing.NewHash(val))
		case "author":
			c.Author = decodeSignature(val)
		case "committer":
			c.Committer = decodeSignature(val)
		}
	}
	if c.Tree.IsZero() {
		return c, fmt.Errorf("no tree")
	}
	return c, nil
}

// decodeSignature reads "Name <email> UNIX +ZZZZ"; what does not parse is
// left empty.
func decodeSignature(s string) Signature {
	var sig Signature
	open, closing := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if open < 0 || closing < open {
		sig.Name = s
		return sig
	}
	sig.Name, sig.Email = strings.TrimSpace(s[:open]), s[open+1:closing]
	f := strings.Fields(s[closing+1:])
	if len(f) == 0 {
		return sig
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return sig
	}
	loc := time.UTC
	if len(f) > 1 && len(f[1]) == 5 {
		hh, herr := strconv.Atoi(f[1][1:3])
		mm, merr := strconv.Atoi(f[1][3:5])
		if herr == nil && merr == nil {
			off := (hh*60 + mm) * 60
			if f[1][0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
		}
	}
	sig.When = time.Unix(sec, 0).In(loc)
	return sig
}

func encodeSignature(s Signature) string {
	// Names and addresses with these characters would break the header.
	clean := strings.NewReplacer("<", "", ">", "", "\n", " ").Replace
	return fmt.Sprintf("%s <%s> %d %s", clean(s.Name), clean(s.Email), s.When.Unix(), s.When.Format("-0700"))
}

// WriteCommit stores c (git commit-tree).
func (r *Repo) WriteCommit(c Commit) (Hash, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	if c.Committer.Name == "" {
		c.Committer = c.Author
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", encodeSignature(c.Author), encodeSignature(c.Committer), c.Message)
	return r.write(plumbing.CommitObject, []byte(b.String()))
}

// CommitTree returns the tree of commit h (git rev-parse H^{tree}).
func (r *Repo) CommitTree(h Hash) (Hash, error) {
	c, err := r.ReadCommit(h)
	return c.Tree, err
}

// treeEntry is one entry of one tree object.
type treeEntry struct {
	name string
	mode FileMode
	hash Hash
}

func decodeTree(data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("truncated tree entry")
		}
		mode, err := filemode.New(string(data[:sp]))
		if err != nil {
			return nil, err
		}
		var h Hash
		copy(h[:], data[nul+1:nul+21])
		out = append(out, treeEntry{name: string(data[sp+1 : nul]), mode: mode, hash: h})
		data = data[nul+21:]
	}
	return out, nil
}

// Files flattens tree h into slash-separated path -> entry
// (git ls-tree -r H); ZeroHash is the empty tree.
func (r *Repo) Files(h Hash) (map[string]Entry, error) {
	out := map[string]Entry{}
	if h.IsZero() {
		return out, nil
	}
	var walk func(prefix string, h Hash, depth int) error
	walk = func(prefix string, h Hash, depth int) error {
		if depth > 16 {
			return fmt.Errorf("tree %s is nested too deep", h)
		}
		data, err := r.read(plumbing.TreeObject, h)
		if err != nil {
			return err
		}
		entries, err := decodeTree(data)
		if err != nil {
			return fmt.Errorf("read tree %s: %w", h, err)
		}
		for _, e := range entries {
			p := prefix + e.name
			if e.mode == ModeDir {
				if err := walk(p+"/", e.hash, depth+1); err != nil {
					return err
				}
				continue
			}
			out[p] = Entry{Hash: e.hash, Mode: e.mode}
		}
		return nil
	}
	return out, walk("", h, 0)
}

// FileAt is the entry at slash-separated path p in tree h, reading only
// the trees on its way (ok false when there is none): one ledger of a
// checkpoint without listing the thousands of files beside it.
func (r *Repo) FileAt(h Hash, p string) (e Entry, ok bool, err error) {
	parts := strings.Split(p, "/")
	for i, name := range parts {
		data, err := r.read(plumbing.TreeObject, h)
		if err != nil {
			return Entry{}, false, err
		}
		entries, err := decodeTree(data)
		if err != nil {
			return Entry{}, false, fmt.Errorf("read tree %s: %w", h, err)
		}
		found := false
		for _, te := range entries {
			if te.name != name {
				continue
			}
			last := i == len(parts)-1
			if last != (te.mode != ModeDir) {
				return Entry{}, false, nil
			}
			if last {
				return Entry{Hash: te.hash, Mode: te.mode}, true, nil
			}
			h, found = te.hash, true
			break
		}
		if !found {
			return Entry{}, false, nil
		}
	}
	return Entry{}, false, nil
}

// WriteTree stores the nested trees of a flat path -> entry map and
// returns the root's hash (git mktree, once per directory); trees already
// stored are not written again.
func (r *Repo) WriteTree(files map[string]Entry) (Hash, error) {
	type dir struct {
		entries []treeEntry
		dirs    map[string]*dir
	}
	newDir := func() *dir { return &dir{dirs: map[string]*dir{}} }
	root := newDir()
	for p, e := range files {
		d := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			sub := d.dirs[part]
			if sub == nil {
				sub = newDir()
				d.dirs[part] = sub
			}
			d = sub
		}
		d.entries = append(d.entries, treeEntry{name: parts[len(parts)-1], mode: e.Mode, hash: e.Hash})
	}
	var write func(d *dir) (Hash, error)
	write = func(d *dir) (Hash, error) {
		entries := d.entries
		for name, sub := range d.dirs {
			h, err := write(sub)
			if err != nil {
				return ZeroHash, err
			}
			entries = append(entries, treeEntry{name: name, mode: ModeDir, hash: h})
		}
		// Git orders entries by name, a directory's name compared as if
		// it ended in "/".
		key := func(e treeEntry) string {
			if e.mode == ModeDir {
				return e.name + "/"
			}
			return e.name
		}
		sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
		var b bytes.Buffer
		for _, e := range entries {
			b.WriteString(strings.TrimLeft(e.mode.String(), "0"))
			b.WriteByte(' ')
			b.WriteString(e.name)
			b.WriteByte(0)
			b.Write(e.hash[:])
		}
		return r.write(plumbing.TreeObject, b.Bytes())
	}
	return write(root)
}
