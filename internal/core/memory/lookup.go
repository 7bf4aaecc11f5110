package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// GetByIssue returns the observations of an issue, oldest first.
func (s *Store) GetByIssue(_ context.Context, issue int) ([]Observation, error) {
	f, err := s.readIssue(issue)
	if err != nil {
		return nil, err
	}
	return f.Observations, nil
}

// GetByID returns one observation, or NOT_FOUND.
func (s *Store) GetByID(ctx context.Context, id string) (*Observation, error) {
	issue, err := s.issueOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if o, err := s.findIn(issue, id); o != nil || err != nil {
		return o, err
	}
	// An ID of the reference shape whose observation was stored under
	// another issue (hand edits, other tools): ask the manifest.
	if other, err := s.lookupIssue(id); err == nil && other != issue {
		if o, err := s.findIn(other, id); o != nil || err != nil {
			return o, err
		}
	}
	return nil, notFound(id)
}

func (s *Store) findIn(issue int, id string) (*Observation, error) {
	f, err := s.readIssue(issue)
	if err != nil {
		return nil, err
	}
	for i := range f.Observations {
		if f.Observations[i].ID == id {
			return &f.Observations[i], nil
		}
	}
	return nil, nil
}

func notFound(id string) error {
	return errcode.New(errcode.NotFound, "no observation %q", id).WithHint("`agentx-hook memory search QUERY` lists observation IDs")
}

// issueOf finds the issue holding id: from the ID itself in the reference
// format, else through the manifest (other tools may use other IDs).
func (s *Store) issueOf(ctx context.Context, id string) (int, error) {
	if n, ok := IssueOfID(id); ok {
		if _, err := os.Stat(s.IssuePath(n)); err == nil {
			return n, nil
		}
	}
	if strings.TrimSpace(id) == "" {
		return 0, errcode.New(errcode.InvalidInput, "observation ID is empty")
	}
	return s.lookupIssue(id)
}

// lookupIssue finds id's issue through the manifest, then the issue files.
func (s *Store) lookupIssue(id string) (int, error) {
	data, err := atomicfile.ReadRegular(s.ManifestPath(), atomicfile.LimitOf(s.ManifestPath()))
	if err == nil {
		if m, err := ParseManifest(s.ManifestPath(), data); err == nil {
			for _, e := range m.Entries {
				if e.ID == id {
					return e.IssueNumber, nil
				}
			}
		}
	}
	// The manifest may be behind (or corrupt): look through the issue files.
	issues, err := s.Issues()
	if err != nil {
		return 0, err
	}
	for _, n := range issues {
		f, err := s.readIssue(n)
		if err != nil {
			continue
		}
		for _, o := range f.Observations {
			if o.ID == id {
				return n, nil
			}
		}
	}
	return 0, notFound(id)
}

// Issues lists the issue numbers that have an issue file, ascending.
func (s *Store) Issues() ([]int, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.Dir, err)
	}
	var out []int
	for _, e := range ents {
		if n, ok := issueFileNumber(e.Name()); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// IssueFileNumber is the issue of an issue file's name (issue-N.json).
func IssueFileNumber(name string) (int, bool) { return issueFileNumber(name) }

func issueFileNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "issue-")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, ".json")
	if !ok {
		return 0, false
	}
	// Issue 0 is the old chat integration's: read and kept like any other.
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}
