package statemerge

import (
	"strings"
	"testing"
)

// A record answered or resolved in one clone, while the branch holds an
// older copy of it (force-pushed to an older commit, or a state_branch
// changed and changed back), with the local copy as the base: the merge
// takes the branch's record, dropping the newer thread entry and status,
// and Lost, which counts records and observations only, lets it through.
// Thread entries are a set that nothing removes (docs/merge.md). Found by
// internal/e2e/statesafety (seeds 20406, 30188; the first with a record
// renumbered by an earlier merge, the second without). Without the base
// the entry is kept.
const resolutionEntry = `        },
        {
          "round": 1,
          "from": "cli",
          "type": "resolution",
          "body": "r20406-8",
          "timestamp": "2026-11-24T22:38:16.221Z",
          "agentxHash": "sha256:d6e475b49d418aee47d188c5b4e24848c78031cbc3aafdc96af710f78136250f"
`

// plain is a ledger without its renamedFrom mark.
func plain(ledger string) string {
	return strings.Replace(ledger, ",\n      \"renamedFrom\": \"CLR-2-001\"", "", 1)
}

func TestOlderBranchCopyNeverDropsAnEntry(t *testing.T) {
	const local = `{
  "issueNumber": 2,
  "clarifications": [
    {
      "id": "CLR-2-001",
      "issueNumber": 2,
      "from": "engineer",
      "to": "architect",
      "topic": "t",
      "blocking": true,
      "status": "pending",
      "round": 1,
      "maxRounds": 5,
      "created": "2026-11-24T22:38:15.483Z",
      "staleAfter": "2026-11-24T23:08:15.483Z",
      "resolvedAt": null,
      "thread": [
        {
          "round": 1,
          "from": "engineer",
          "type": "question",
          "body": "q20406-1",
          "timestamp": "2026-11-24T22:38:15.483Z",
          "agentxHash": "sha256:17ef3a8850e97d9293667d15d2a03697905c28660d6c021e6aff3a0f573c060d"
        }
      ],
      "slaMinutes": 30
    },
    {
      "id": "CLR-2-002",
      "issueNumber": 2,
      "from": "engineer",
      "to": "architect",
      "topic": "t",
      "blocking": true,
      "status": "resolved",
      "round": 1,
      "maxRounds": 5,
      "created": "2026-11-24T22:38:15.572Z",
      "staleAfter": "2026-11-24T23:08:15.572Z",
      "resolvedAt": "2026-11-24T22:38:16.221Z",
      "thread": [
        {
          "round": 1,
          "from": "engineer",
          "type": "question",
          "body": "q20406-4",
          "timestamp": "2026-11-24T22:38:15.572Z",
          "agentxHash": "sha256:8b61d736157cee976c3c0857c519d9f12929a6c55f319cf6118b456965904f92"
        },
        {
          "round": 1,
          "from": "cli",
          "type": "resolution",
          "body": "r20406-8",
          "timestamp": "2026-11-24T22:38:16.221Z",
          "agentxHash": "sha256:d6e475b49d418aee47d188c5b4e24848c78031cbc3aafdc96af710f78136250f"
        }
      ],
      "slaMinutes": 30,
      "renamedFrom": "CLR-2-001"
    }
  ]
}
`
	// The branch's copy: the same record before its resolution.
	branch := strings.NewReplacer(
		`"status": "resolved"`, `"status": "pending"`,
		`"resolvedAt": "2026-11-24T22:38:16.221Z"`, `"resolvedAt": null`,
		resolutionEntry, "",
	).Replace(local)
	if branch == local || strings.Contains(branch, "r20406-8") {
		t.Fatal("the branch's copy was not derived")
	}
	const p = "state/clarifications/issue-2.json"
	// The sync's argument order: base, the branch as "ours", the local file as "theirs".
	for _, tc := range []struct {
		name               string
		base, ours, theirs string
	}{
		{"base is the local copy", local, branch, local},
		{"no base", "", branch, local},
		// No renumbering needed: the branch force-pushed (or its name
		// changed) back to a commit from before the resolution.
		{"no rename, base is the local copy", plain(local), plain(branch), plain(local)},
	} {
		var base []byte
		if tc.base != "" {
			base = []byte(tc.base)
		}
		merged, _, err := MergeFile(p, base, []byte(tc.ours), []byte(tc.theirs))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(string(merged), "r20406-8") {
			t.Errorf("%s: the resolution was dropped:\n%s", tc.name, merged)
		}
	}
}
