// Package agentstatus owns `.agentx/state/agent-status.json`: what each
// agent is doing (idle, working, clarifying, blocked-clarification, done,
// stuck) and on which issue and clarification. Unlike the old writers it
// updates the file under its lock, so concurrent updates are not lost.
package agentstatus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// Statuses.
const (
	Idle                 = "idle"
	Working              = "working"
	Clarifying           = "clarifying"
	BlockedClarification = "blocked-clarification"
	Done                 = "done"
	Stuck                = "stuck"
)

// Status is one agent's entry.
type Status struct {
	Status          string  `json:"status"`
	Issue           *int    `json:"issue"`
	LastActivity    string  `json:"lastActivity"`
	ClarificationID *string `json:"clarificationId"`
	WaitingOn       *string `json:"waitingOn"`
	RespondingTo    *string `json:"respondingTo"`
	Extra           []jsonfile.Field
	// nullActivity: the file had `"lastActivity": null` (the old tools
	// write it for an agent never active); kept while LastActivity is "".
	nullActivity bool
}

var knownKeys = []string{"status", "issue", "lastActivity", "clarificationId", "waitingOn", "respondingTo"}

// MarshalJSON writes the reference keys, then any others.
func (s Status) MarshalJSON() ([]byte, error) {
	type plain struct {
		Status          string  `json:"status"`
		Issue           *int    `json:"issue"`
		LastActivity    string  `json:"lastActivity"`
		ClarificationID *string `json:"clarificationId"`
		WaitingOn       *string `json:"waitingOn"`
		RespondingTo    *string `json:"respondingTo"`
	}
	b, err := json.Marshal(plain{s.Status, s.Issue, s.LastActivity, s.ClarificationID, s.WaitingOn, s.RespondingTo})
	if err == nil && s.nullActivity && s.LastActivity == "" {
		b = bytes.Replace(b, []byte(`"lastActivity":""`), []byte(`"lastActivity":null`), 1)
	}
	if err != nil || len(s.Extra) == 0 {
		return b, err
	}
	fields, _ := jsonfile.SplitObject(b)
	return jsonfile.JoinObject(append(fields, s.Extra...)), nil
}

// Entry is an agent with its status.
type Entry struct {
	Agent string
	Status
}

// File is the whole status file, agents in file order.
type File struct {
	Entries []Entry
}

// Get returns the status of agent, or nil.
func (f *File) Get(agent string) *Status {
	for i := range f.Entries {
		if f.Entries[i].Agent == agent {
			return &f.Entries[i].Status
		}
	}
	return nil
}

// Ensure returns the status of agent, adding an idle one if absent.
func (f *File) Ensure(agent string) *Status {
	if s := f.Get(agent); s != nil {
		return s
	}
	f.Entries = append(f.Entries, Entry{Agent: agent, Status: Status{Status: Idle}})
	return &f.Entries[len(f.Entries)-1].Status
}

// Sorted returns the entries sorted by agent name.
func (f *File) Sorted() []Entry {
	out := append([]Entry(nil), f.Entries...)
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}

// ByAgent is every agent's status by name.
func (f *File) ByAgent() map[string]Status {
	out := make(map[string]Status, len(f.Entries))
	for _, e := range f.Entries {
		out[e.Agent] = e.Status
	}
	return out
}

// MarshalJSON writes the agents in order.
func (f File) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range f.Entries {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.Agent)
		b.Write(k)
		b.WriteByte(':')
		v, err := e.Status.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Decode parses the status file.
func Decode(path string, data []byte) (*File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, jsonfile.Corrupt(path, 0, errors.New("file is empty"))
	}
	top, err := jsonfile.SplitObject(data)
	if err != nil {
		return nil, jsonfile.Corrupt(path, jsonfile.OffsetOf(err), err)
	}
	f := &File{}
	for _, t := range top {
		var st Status
		if err := json.Unmarshal(t.Value, &st); err != nil {
			return nil, jsonfile.Corrupt(path, jsonfile.OffsetOf(err), fmt.Errorf("agent %q: %w", t.Key, err))
		}
		fields, err := jsonfile.SplitObject(t.Value)
		if err != nil {
			return nil, jsonfile.Corrupt(path, jsonfile.OffsetOf(err), err)
		}
		for _, fl := range fields {
			if fl.Key == "lastActivity" && string(bytes.TrimSpace(fl.Value)) == "null" {
				st.nullActivity = true
			}
			if !jsonfile.Known(fl.Key, knownKeys) {
				st.Extra = append(st.Extra, fl)
			}
		}
		f.Entries = append(f.Entries, Entry{Agent: t.Key, Status: st})
	}
	return f, nil
}

// Load reads the file without locking; missing is empty.
func Load(path string) (*File, error) {
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &File{}, nil
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return Decode(path, data)
}

// Update runs fn on the file under its lock and writes it atomically.
func Update(ctx context.Context, locks *lock.Locker, path string, fn func(*File) error) error {
	return atomicfile.WithLock(ctx, locks, path, func(lk *lock.Lock) error {
		f, err := Load(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
		if len(f.Entries) == 0 {
			if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
				// Nothing to record: no `{}` file. The reference
				// extension seeds its agents only when the file is
				// missing, so an empty one would leave it without them.
				return nil
			}
		}
		data, err := jsonfile.Marshal(f)
		if err != nil {
			return err
		}
		return atomicfile.Write(path, data, atomicfile.Options{Commit: lk.Commit})
	})
}

// Ptr returns a pointer to v (for the nullable fields).
func Ptr[T any](v T) *T { return &v }
