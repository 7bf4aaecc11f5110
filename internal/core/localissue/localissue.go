// Package localissue owns the issue files a team may keep in
// `.agentx/issues/` (`N.json` or `issue-N.json`, whatever their shape):
// which issues they name, and their title and status when the file has
// them. `ready` lists these issues beside the ones ledgers and memory know.
package localissue

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Issue is one local issue file.
type Issue struct {
	Number int
	// Path is the file.
	Path string
	// Title has its white space collapsed to single spaces.
	Title string
	// Status is the file's "status", else its "state" (GitHub's word).
	Status string
	// Invalid reports a file that is not JSON: the issue is listed
	// without its title.
	Invalid bool
}

// Read lists the issue files in dir; a missing dir holds none. A file
// that cannot be read is listed by its name alone.
func Read(dir string) ([]Issue, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Issue
	for _, e := range entries {
		n, ok := Number(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		out = append(out, read(filepath.Join(dir, e.Name()), n))
	}
	return out, nil
}

// Number is the issue a file name names: `issue-N.json` or `N.json`.
func Number(name string) (int, bool) {
	if n, ok := workspace.LedgerIssue(name); ok {
		return n, true
	}
	num, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n > 0
}

func read(path string, n int) Issue {
	is := Issue{Number: n, Path: path}
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		return is
	}
	var doc struct {
		Title  string `json:"title"`
		Status string `json:"status"`
		State  string `json:"state"`
	}
	if json.Unmarshal(data, &doc) != nil {
		is.Invalid = true
		return is
	}
	is.Title = strings.Join(strings.Fields(doc.Title), " ")
	is.Status = doc.Status
	if is.Status == "" {
		is.Status = doc.State
	}
	return is
}

// SetStatus writes status as the "status" of the issue file at path under
// its lock, every other key kept in its place (a new "status" goes last).
// It is how a workflow step's status_on_start and status_on_complete
// reach a Local Mode issue.
func SetStatus(ctx context.Context, locks *lock.Locker, path, status string) error {
	return atomicfile.WithLock(ctx, locks, path, func(lk *lock.Lock) error {
		data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
		if err != nil {
			return err
		}
		fields, err := jsonfile.SplitObject(data)
		if err != nil {
			return jsonfile.Corrupt(path, jsonfile.CorruptOffset(data, err), err)
		}
		raw, _ := json.Marshal(status) // a string always marshals
		placed := false
		for i := range fields {
			if fields[i].Key == "status" {
				if string(fields[i].Value) == string(raw) {
					return nil
				}
				fields[i].Value, placed = raw, true
			}
		}
		if !placed {
			fields = append(fields, jsonfile.Field{Key: "status", Value: raw})
		}
		out, err := jsonfile.Marshal(json.RawMessage(jsonfile.JoinObject(fields)))
		if err != nil {
			return err
		}
		return atomicfile.Write(path, out, atomicfile.Options{Commit: lk.Commit})
	})
}

// Paths are the names the file of issue n may have in dir, in the order
// they are looked for.
func Paths(dir string, n int) []string {
	return []string{filepath.Join(dir, strconv.Itoa(n)+".json"), filepath.Join(dir, "issue-"+strconv.Itoa(n)+".json")}
}
