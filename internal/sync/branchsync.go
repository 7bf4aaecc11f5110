package sync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// settings fingerprints what a rendering depends on besides the ledger.
func (s *Syncer) settings() string {
	h := sha256.Sum256([]byte(fmt.Sprintf("v1\x00%s\x00%s\x00%s", s.Labels.Blocked, s.Labels.Escalated, s.Bot)))
	return hex.EncodeToString(h[:8])
}

// mirroredMessage is the message of the sync state's commit when a run
// mirrored every ledger of its parent commit under the given settings: a
// branch whose tip is such a commit has nothing new to mirror. Any other
// writer (an agent's push, ingest, monitor) commits on top of it.
func mirroredMessage(settings string) string {
	return "agentx: GitHub mirrors this state (settings " + settings + ") [skip ci]"
}

// UpToDate reports, in one API call, whether the branch's tip is this
// syncer's own record of a complete mirror of its parent under the same
// settings: then nothing changed since, and a run has nothing to do.
func (s *Syncer) UpToDate(ctx context.Context, sb *StateBranch) (bool, error) {
	if s.Full {
		return false, nil
	}
	sha, msg, err := sb.Head(ctx)
	if err != nil || sha == "" {
		return false, err
	}
	first, _, _ := strings.Cut(msg, "\n")
	return first == mirroredMessage(s.settings()), nil
}

// stateTrailer names, in a complete mirror's commit message, the blob of
// the sync state it wrote.
const stateTrailer = "agentx-sync-state: "

// QuickSnapshot reads the branch from its tip alone when the tip is this
// syncer's own record of a complete mirror under the same settings: the
// tip's message names the sync state's blob, and the state lists every
// ledger's blob of the commit it mirrored (Ledgers), which the tip did not
// change. Two calls (the branch, the state) and no tree read. The
// snapshot is Partial: it lists the ledgers and the sync state only, so
// a run that must write anything else reads the branch in full. It
// returns nil when the tip is anything else.
func (s *Syncer) QuickSnapshot(ctx context.Context, sb *StateBranch) (*StateSnapshot, *State, error) {
	if s.Full {
		return nil, nil, nil
	}
	sha, tree, msg, err := sb.head(ctx)
	if err != nil || sha == "" {
		return nil, nil, err
	}
	first, rest, _ := strings.Cut(msg, "\n")
	_, blob, found := strings.Cut(rest, stateTrailer)
	blob, _, _ = strings.Cut(blob, "\n")
	if first != mirroredMessage(s.settings()) || !found || blob == "" || tree == "" {
		return nil, nil, nil
	}
	snap := &StateSnapshot{Commit: sha, Tree: tree, Blobs: map[string]string{SyncStatePath: blob}, Partial: true}
	data, err := sb.ReadFile(ctx, snap, SyncStatePath)
	if err != nil {
		return nil, nil, err
	}
	st := ParseState(data)
	if st.Ledgers == nil || st.Settings != s.settings() {
		return nil, nil, nil
	}
	for p, b := range st.Ledgers {
		snap.Blobs[p] = b
	}
	return snap, st, nil
}

// RunBranch syncs every ledger of the state branch (snap as read, or nil
// to read it) and records the sync state there. A ledger whose blob is the
// one the state recorded under the same settings is not even read: an
// unchanged branch costs the ref and tree reads and the state's blob.
func (s *Syncer) RunBranch(ctx context.Context, sb *StateBranch, snap *StateSnapshot) error {
	if snap == nil {
		var err error
		if snap, err = sb.Read(ctx); err != nil {
			return err
		}
	}
	data, err := sb.ReadFile(ctx, snap, SyncStatePath)
	if err != nil {
		return err
	}
	st := ParseState(data)
	settings := s.settings()
	trust := st.Settings == settings && !s.Full
	issues, paths := branchLedgers(snap)
	s.prepare(issues, st)
	var loaded []ledger.Loaded
	blobs := map[int]string{}
	var read []int // indexes into issues of the ledgers to read
	for i, n := range issues {
		blob := snap.Blobs[paths[i]]
		if is, ok := st.Get(n); trust && ok && is.Blob == blob && (!s.recon[n] || s.inOrder(ctx, n, is)) {
			s.Counts.IssuesUnchanged++
			s.debugf("issue #%d: ledger unchanged since it was mirrored (blob %s), not read", n, blob)
			continue
		}
		read = append(read, i)
	}
	// Many ledgers to read (a first mirror, a full resync, new settings):
	// one archive instead of a call each.
	want := make(map[string]bool, len(read))
	for _, i := range read {
		want[paths[i]] = true
	}
	sb.Prefetch(ctx, snap, s.Warn, func(p string) bool { return want[p] })
	for _, i := range read {
		n := issues[i]
		blob := snap.Blobs[paths[i]]
		l, _, err := sb.readLedger(ctx, snap, n, paths[i])
		if err != nil && l == nil && !isCorrupt(err) {
			return err
		}
		loaded = append(loaded, ledger.Loaded{Issue: n, Ledger: l, Err: err})
		blobs[n] = blob
	}
	runErr := s.runWithStages(ctx, sb, snap, loaded, st)
	if s.DryRun {
		return runErr
	}
	s.recordBlobs(loaded, blobs, st)
	st.learn(s.Learned)
	if c := s.Counts; s.recon != nil && c.CommentsCreated+c.CommentsUpdated+c.CommentsDeleted+c.LabelsAdded+c.LabelsRemoved > 0 {
		st.markSettings() // a run that wrote anyway records where the rotation stands
	}
	// The settings hold for every blob recorded: those recorded by this
	// run, and, when they were the same before, the older ones. A failed
	// issue records no blob and is read again next run, so one broken
	// ledger does not make every later run read all of them again.
	if runErr == nil || errors.As(runErr, new(*FailedIssues)) {
		if st.Settings != settings {
			st.dropBlobs(blobs)
		}
		st.SetSettings(settings)
	}
	if runErr == nil {
		st.setLedgers(snap)
		if s.MarkMirrored && !snap.Partial && !st.Changed() {
			st.markSettings() // the tip is another writer's: record the mirror on top
		}
	}
	// Save what did land even when the run stopped half way: the next run
	// then rereads only the issues this one did not finish. A cancelled
	// run (the runner's SIGTERM) still records its progress.
	saveCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	complete := ""
	if runErr == nil {
		complete = mirroredMessage(settings)
	}
	if err := saveState(saveCtx, sb, st, snap, complete); err != nil && runErr == nil {
		return fmt.Errorf("save sync state: %w", err)
	}
	return runErr
}

// runWithStages mirrors the ledgers read, then the stages (stage.go).
func (s *Syncer) runWithStages(ctx context.Context, sb *StateBranch, snap *StateSnapshot, loaded []ledger.Loaded, st *State) error {
	if err := s.Run(ctx, loaded, st); err != nil {
		return err
	}
	if err := s.syncStages(ctx, sb, snap, st); err != nil {
		return err
	}
	if len(s.Failures) > 0 {
		return &FailedIssues{Failures: s.Failures}
	}
	return nil
}

// recordBlobs records, beside the hash each ledger was mirrored with,
// its blob and what the monitor needs of it, so the next run need not
// read it. A ledger with nothing to show is recorded too.
func (s *Syncer) recordBlobs(loaded []ledger.Loaded, blobs map[int]string, st *State) {
	for _, ld := range loaded {
		if ld.Err != nil {
			continue
		}
		hash := DesiredFor(ld.Ledger, s.Labels, s.Clean, s.Mention).Hash(s.Bot)
		is, ok := st.Get(ld.Issue)
		if !ok || is.Hash != hash {
			continue // not mirrored (failed, or stopped before it)
		}
		is.Hash, is.Blob, is.Watch = hash, blobs[ld.Issue], watchOf(ld.Ledger)
		st.Set(ld.Issue, is)
	}
}

// saveState commits st when it changed. A complete run commits it right
// on the snapshot it mirrored, with the complete message (the next run
// then reads one call); on a lost race it merges with the state the other
// run wrote (its issues kept, ours on top) and tries again under the
// ordinary message, since the new parent holds commits it did not mirror.
func saveState(ctx context.Context, sb *StateBranch, st *State, read *StateSnapshot, complete string) error {
	if !st.Changed() {
		return nil
	}
	if complete != "" && read.Commit != "" {
		data, err := jsonfile.Marshal(st)
		if err != nil {
			return fmt.Errorf("encode sync state: %w", err)
		}
		_, err = sb.Commit(ctx, read, map[string][]byte{SyncStatePath: data}, complete+"\n\n"+stateTrailer+blobSHA(data))
		if err == nil {
			st.touched = nil
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	_, _, err := sb.UpdateFrom(ctx, read, "agentx: record GitHub sync state [skip ci]", func(_ context.Context, snap *StateSnapshot, readFile func(string) ([]byte, error)) (map[string][]byte, error) {
		if snap.Blobs[SyncStatePath] != read.Blobs[SyncStatePath] {
			fresh, err := readFile(SyncStatePath)
			if err != nil {
				return nil, err
			}
			st = st.mergeInto(ParseState(fresh))
			read = snap
		}
		data, err := jsonfile.Marshal(st)
		if err != nil {
			return nil, fmt.Errorf("encode sync state: %w", err)
		}
		return map[string][]byte{SyncStatePath: data}, nil
	})
	if err == nil {
		st.touched = nil
	}
	return err
}
