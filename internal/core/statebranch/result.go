package statebranch

import "time"

// What a sync reports: its result, the files it could not merge or parse,
// and how the branch diverged.

// Conflict is a file that could not be merged: it stays as it is locally
// and is not pushed until a person or a later merge resolves it.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Corrupt is a state file that does not parse, on one side: it was
// neither pushed nor copied over a file that parses, and stays as it is
// until a person repairs or removes it.
type Corrupt struct {
	Path string `json:"path"`
	// Side is "local" (the file under .agentx/) or "remote" (the state
	// branch's copy at Commit, which this sync replaced with the merge of
	// the copies that parse, when there was one).
	Side   string `json:"side"`
	Commit string `json:"commit,omitempty"`
	Reason string `json:"reason"`
}

// Divergence says that the state branch's history was not the one this
// clone synchronised with last: a sync then merges as a union (as every
// sync does) and says so once.
type Divergence struct {
	// Reason is "rewritten" (the remote tip does not descend from the
	// last synchronised commit: a force-push, a recreated or renamed
	// branch, another remote) or "gone" (the remote has no state branch
	// although this clone synchronised with one).
	Reason string `json:"reason"`
	// Base and Tip are the last synchronised commit and the remote tip
	// ("" when gone).
	Base string `json:"base"`
	Tip  string `json:"tip,omitempty"`
	// Kept lists the files whose content on the branch this sync
	// extended with what this clone (or the last synchronised base)
	// held: what the rewrite would have lost.
	Kept []string `json:"kept"`
}

// Result says what a sync did.
type Result struct {
	Remote string `json:"remote"`
	Branch string `json:"branch"`
	// Fetches counts the fetches run; RemoteExists is false when the
	// remote has no state branch yet.
	Fetches      int  `json:"fetches"`
	RemoteExists bool `json:"remoteExists"`
	// Seeded lists files --init-from brought in or merged.
	Seeded []string `json:"seeded"`
	// Merged lists files changed on both sides and merged three-way;
	// Written lists the local files this sync replaced or removed.
	Merged    []string   `json:"merged"`
	Written   []string   `json:"written"`
	Conflicts []Conflict `json:"conflicts"`
	// Restored lists the local files that were here at the last sync,
	// went missing since (git clean, a deleted directory) and were brought
	// back: a missing file is "not here yet", never a deletion. (A fresh
	// clone's or new worktree's files are new to it: in Written only.)
	Restored []string `json:"restored"`
	// Corrupt lists the files that did not parse on one side.
	Corrupt []Corrupt `json:"corrupt"`
	// Diverged is set when the remote history was not the one of the
	// last sync.
	Diverged *Divergence `json:"diverged,omitempty"`
	// Notes are repairs the sync made on the way (a stale git ref lock
	// removed), each said once.
	Notes []string `json:"notes,omitempty"`
	// Commit is the commit made on the branch ("" when nothing changed);
	// Created is set when it started the branch's history.
	Commit  string `json:"commit,omitempty"`
	Created bool   `json:"created"`
	Pushed  bool   `json:"pushed"`
	// Retries counts pushes lost to a race and merged again.
	Retries int `json:"retries"`
	// Trail is the branch directory of this clone's audit trail
	// (TrailDir of its writer id; "" when it has none or a pull only ran).
	Trail string `json:"trail,omitempty"`
	// Tip is the state branch's commit after the sync, as far as we know.
	Tip string `json:"tip,omitempty"`
	// FetchMillis and PushMillis are the time spent in the transfers, so
	// that the sync's own cost (the rest) can be told from the network's.
	FetchMillis float64 `json:"fetchMs"`
	PushMillis  float64 `json:"pushMs"`
	// Unchanged is set when the state directories and the remote tip
	// showed nothing changed since the last sync, so no state file was
	// looked at (see clean.go); Scanned counts the state files a scan
	// stat'ed (0 then).
	Unchanged bool `json:"unchanged"`
	Scanned   int  `json:"scanned"`
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
