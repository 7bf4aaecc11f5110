//go:build linux && (amd64 || arm64)

// What a workspace holds, read from its files as any reader would: every
// clarification record, every stage artifact and every observation (in an
// issue file or the archive), and the checks of what a kill may and may not do to them.

package crashpoints

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// snapshot maps "clr:ID", "obs:ID" and "art:ID" to the record as read.
type snapshot map[string]map[string]any

// readSnapshot reads every ledger, memory issue file and archive file of
// the workspace at root. A file that does not parse is an error: a
// half-written file is what the test looks for.
func readSnapshot(root string) (snapshot, error) {
	s := snapshot{}
	read := func(pattern, list, prefix string) error {
		files, err := filepath.Glob(filepath.Join(root, ".agentx", pattern))
		if err != nil {
			return err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(data, &doc); err != nil {
				return fmt.Errorf("%s does not parse (%d bytes): %w", f, len(data), err)
			}
			var recs []map[string]any
			if raw, ok := doc[list]; ok {
				if err := json.Unmarshal(raw, &recs); err != nil {
					return fmt.Errorf("%s: %s: %w", f, list, err)
				}
			}
			for _, r := range recs {
				id, _ := r["id"].(string)
				key := prefix + id
				if _, dup := s[key]; dup && prefix == "clr:" {
					return fmt.Errorf("%s: %s held twice", f, key)
				}
				s[key] = r
			}
		}
		return nil
	}
	if err := read("state/clarifications/issue-*.json", "clarifications", "clr:"); err != nil {
		return nil, err
	}
	if err := read("state/artifacts/issue-*.json", "artifacts", "art:"); err != nil {
		return nil, err
	}
	if err := read("memory/issue-*.json", "observations", "obs:"); err != nil {
		return nil, err
	}
	// An observation compacted away or archived is still stored: in the
	// archive, the issue file's shape.
	if err := read("memory/archive/*.json", "observations", "obs:"); err != nil {
		return nil, err
	}
	return s, nil
}

// volatile are the fields of an observation a read changes (recall).
var volatile = map[string]bool{"recallCount": true, "lastRecalled": true}

// stable is the record without what reads and later rounds may change:
// for an observation its volatile fields; for a clarification what names
// the record (id, issue, from, to, topic, created); for a stage artifact
// what names it (id, workflow, step, path, created), its blob and review
// status being what commits and reviews change.
func stable(key string, r map[string]any) map[string]any {
	out := map[string]any{}
	if strings.HasPrefix(key, "obs:") {
		for k, v := range r {
			if !volatile[k] {
				out[k] = v
			}
		}
		return out
	}
	names := []string{"id", "issueNumber", "from", "to", "topic", "created", "blocking"}
	if strings.HasPrefix(key, "art:") {
		names = []string{"id", "workflow", "step", "path", "created"}
	}
	for _, k := range names {
		out[k] = r[k]
	}
	return out
}

// thread is a clarification's thread entries, each as JSON.
func thread(r map[string]any) []string {
	entries, _ := r["thread"].([]any)
	var out []string
	for _, e := range entries {
		data, _ := json.Marshal(e)
		out = append(out, string(data))
	}
	return out
}

// keptAll returns what of before is missing or changed in now beyond what
// a command may do: a record gone, an observation changed, a
// clarification renamed or its earlier thread entries changed.
func keptAll(before, now snapshot) []string {
	var bad []string
	for key, b := range before {
		n, ok := now[key]
		if !ok {
			bad = append(bad, key+" is gone")
			continue
		}
		if !reflect.DeepEqual(stable(key, b), stable(key, n)) {
			bad = append(bad, fmt.Sprintf("%s changed: %v -> %v", key, stable(key, b), stable(key, n)))
			continue
		}
		if strings.HasPrefix(key, "clr:") {
			tb, tn := thread(b), thread(n)
			if len(tn) < len(tb) || !reflect.DeepEqual(tb, tn[:len(tb)]) {
				bad = append(bad, fmt.Sprintf("%s's thread lost or changed entries: %v -> %v", key, tb, tn))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// added returns the keys of now that before does not hold, sorted.
func added(before, now snapshot) []string {
	var out []string
	for k := range now {
		if _, ok := before[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// threadGrowth is how many entries clarification key gained from before
// to now (0 when either lacks it).
func threadGrowth(before, now snapshot, key string) int {
	b, ok1 := before[key]
	n, ok2 := now[key]
	if !ok1 || !ok2 {
		return 0
	}
	return len(thread(n)) - len(thread(b))
}
