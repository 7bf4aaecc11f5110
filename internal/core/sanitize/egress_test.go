package sanitize

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// egresses are the places that write a file, a git object or an audit
// line, by source file and number of call sites, with where what they
// write passes the sanitiser (or why nothing outside reaches them).
// TestEgressesAreKnown fails when a write appears anywhere else: a new
// egress must name its sanitising point here.
var egresses = map[string]struct {
	sites int
	how   string
}{
	"internal/actiondemo/demo.go":                                  {1, "demo fixtures written by the program itself"},
	"internal/actionimage/check.go":                                {3, "the image check's fixtures: config defaults, the runner's empty file-command files, an event payload it builds"},
	"internal/core/digest/save.go":                                 {1, "digest text rendered from ledgers and memory, both sanitised when stored"},
	"internal/core/recall/cli.go":                                  {1, "host instruction files rendered from sanitised memory"},
	"internal/core/initws/initws.go":                               {5, "agentx.toml, .gitignore: our own templates; AGENTS.md: our section, the user's text kept as it was"},
	"internal/core/statemerge/driver.go":                           {1, "git merge driver: the merge of two sanitised state files"},
	"internal/core/statesync/index.go":                             {1, "a process id"},
	"internal/core/hooklog/hooklog.go":                             {1, "hook runs: agent and warnings pass sanitize.Clean in bound"},
	"internal/core/setup/setup.go":                                 {1, "host settings: our hook commands"},
	"internal/core/setup/uninstall.go":                             {1, "AGENTS.md with our section taken out, the user's text kept as it was"},
	"internal/core/demo/demo.go":                                   {1, "demo fixtures"},
	"internal/sync/audit.go":                                       {1, "audit.AppendRotating: clip sanitises actor and detail"},
	"internal/core/atomicfile/atomicfiletest/crash.go":             {1, "test helper"},
	"internal/core/githooks/apply.go":                              {1, "git hook scripts: our templates"},
	"internal/core/githooks/mergedriver.go":                        {2, ".gitattributes: our lines"},
	"internal/core/gitexclude/gitexclude.go":                       {2, ".git/info/exclude: our one pattern, the user's lines kept as they were"},
	"internal/core/gitstore/statcache.go":                          {1, "file stats"},
	"internal/core/responder/long.go":                              {1, "a responder's long answer: router passes sanitize.Clean(answer)"},
	"internal/core/statebranch/recover.go":                         {1, "merge of sanitised state files"},
	"internal/core/statebranch/merge.go":                           {1, "merge of sanitised state files"},
	"internal/core/statebranch/trail.go":                           {1, "a commit id"},
	"internal/core/statebranch/statebranchtest/statebranchtest.go": {4, "test helper (files of test repositories and their template copies, the tests' git config)"},
	"internal/testenv/copytree.go":                                 {1, "test helper: copies of test workspaces"},
	"internal/testenv/executable.go":                               {1, "test helper: the fake programs tests run"},
	"internal/core/statebranch/divergence.go":                      {1, "a commit id"},
	"internal/core/statebranch/clean.go":                           {1, "directory stats and a commit id"},
	"internal/core/spool/spool.go":                                 {3, "intake sanitises the entry (intake/clean.go); counters"},
	"internal/core/events/events.go":                               {1, "events carry ids and sanitised ledger text (protocol.sanitized)"},
	"internal/core/ledger/store.go":                                {1, "ledgers: protocol.sanitized on every op (text, topic, reason, detail, --as)"},
	"internal/core/monitor/scan.go":                                {1, "an index of ids and times"},
	"internal/core/config/cache.go":                                {1, "the configuration cache: agentx.toml and the workflows as parsed, the user's own files, local and git-ignored"},
	"internal/core/delivery/stamp.go":                              {1, "inbox stamps: a generation token; a session's generation, start time and agent name"},
	"internal/core/monitor/synth/synth.go":                         {1, "synthetic test data"},
	"internal/core/checkpoint/restore.go":                          {1, "files restored from a checkpoint (sanitised when first written); create sanitises its message"},
	"internal/core/checkpoint/pending.go":                          {2, "pending marks: a checkpoint's short id and tree (issue 32)"},
	"internal/core/agentstatus/agentstatus.go":                     {1, "agent names and states"},
	"internal/core/cursor/cursor.go":                               {1, "transcript offsets"},
	"internal/core/memory/store.go":                                {1, "Observation.sanitized in groupByIssue, before every write"},
	"internal/core/memory/compact.go":                              {1, "archived observations, sanitised when they were stored"},
	"internal/core/memory/recallcount.go":                          {1, "recall counts of stored, sanitised observations"},
	"internal/core/memory/filestamps.go":                           {3, "issue files' sizes, times and checksums"},
	"internal/core/memory/delta.go":                                {1, "the delta segment: issue files' stamps and the index of sanitised observations"},
	"internal/core/memory/filebase.go":                             {1, "the file base: the index of sanitised observations (positions in their issue files)"},
	"internal/core/memory/fresh.go":                                {2, "the freshness record and a writer's re-record of it: numbers and stat data only"},
	"internal/core/memory/overlay.go":                              {1, "a reader's overlay: the delta's encoding of issue files' stamps and the index of their sanitised observations"},
	"internal/core/memanchor/base.go":                              {1, "the derived anchors index: ids, hashes and times from the audit trail"},
	"internal/core/memanchor/state.go":                             {1, "the anchors index's state: trail position, file stamps, verdicts of our own wording"},
	"internal/core/retention/retention.go":                         {1, "an issue cursor and a date"},
	"internal/core/metrics/weekly.go":                              {1, "counters, a writer id and times"},
	"internal/core/memory/manifest.go":                             {2, "rows of sanitised observations"},
	"internal/core/artifact/store.go":                              {1, "artifact ledgers: paths pass sanitize.Clean in record; ids derive from them; git ids, config names, statuses"},
	"internal/core/artifact/synth/synth.go":                        {1, "synthetic test data"},
	"internal/core/artifact/scan.go":                               {1, "the scan index: summaries of the ledgers (ids, workflow names, git ids, paths already sanitised in record)"},
	"internal/core/localissue/localissue.go":                       {1, "a status from the workflow's config, the file's other keys kept as they were"},
}

var writeCall = regexp.MustCompile(`atomicfile\.(Write|Replace|Append|Update)[A-Za-z]*\(|jsonfile\.Write[A-Za-z]*\(|os\.WriteFile\(|audit\.Append[A-Za-z]*\(`)

func TestEgressesAreKnown(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	found := map[string]int{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if strings.HasPrefix(rel, "internal/tools/") || strings.HasPrefix(rel, "internal/e2e/") || strings.Contains(rel, "/gen/") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if n := len(writeCall.FindAllIndex(data, -1)); n > 0 {
				found[rel] = n
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	for f := range found {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		e, ok := egresses[f]
		switch {
		case !ok:
			t.Errorf("%s writes (%d sites) but is not in the egress table: sanitise what it writes (sanitize.Clean or Text) and add a row", f, found[f])
		case e.sites != found[f]:
			t.Errorf("%s has %d write sites, the egress table %d: check the new one sanitises, then update the row", f, found[f], e.sites)
		}
	}
	for f := range egresses {
		if found[f] == 0 {
			t.Errorf("%s no longer writes: drop its row", f)
		}
	}
}
