package githooks

import (
	"sort"
	"strconv"
	"strings"
)

// Snapshot is what a hooks directory holds, as far as planning cares:
// the files named after our hooks (NAME, NAME.agentx-chained, backups),
// by name. Planning reads nothing else, so tests build snapshots by hand.
type Snapshot struct {
	Dir   string
	Files map[string][]byte
	// HooksPath is core.hooksPath ("" when unset).
	HooksPath string
	// Tracked names the files of Files that the repository tracks (a
	// core.hooksPath inside the worktree): moving one aside would change
	// the repository, so install leaves them alone.
	Tracked map[string]bool
}

func (s *Snapshot) file(name string) ([]byte, bool) {
	data, ok := s.Files[name]
	return data, ok
}

// Kind is what a plan does with one hook.
type Kind string

const (
	// Create writes our shim where there was no hook.
	Create Kind = "create"
	// Chain moves a foreign hook to NAME.agentx-chained and writes our
	// shim, which runs it first.
	Chain Kind = "chain"
	// Replace rewrites our own shim of another version.
	Replace Kind = "replace"
	// Keep leaves our current shim alone.
	Keep Kind = "keep"
	// Conflict is a foreign hook whose chained slot is already taken
	// (typically a hooks manager reinstalled over our shim). Install
	// leaves it alone unless forced; uninstall always does.
	Conflict Kind = "conflict"
	// Remove deletes our shim (uninstall, nothing was chained).
	Remove Kind = "remove"
	// Restore deletes our shim, if present, and renames the chained hook
	// back (uninstall).
	Restore Kind = "restore"
	// Managed is a foreign hook install must not move: husky finds the
	// script to run from the hook's own file name ($0), so a renamed husky
	// hook runs nothing; a hook the repository tracks would show up as a
	// change. The advice is to call agentx-hook from that hook instead.
	Managed Kind = "managed"
	// Absent: nothing of ours (uninstall) and nothing to do.
	Absent Kind = "absent"
	// Foreign: a hook that is not ours and chains nothing (uninstall).
	Foreign Kind = "foreign"
)

// Op is one file operation, in order. Write writes Shim(Step.Hook) to To.
type Op struct {
	Op   string `json:"op"` // "rename", "write" or "remove"
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Step is the plan for one hook.
type Step struct {
	Hook   string `json:"hook"`
	Kind   Kind   `json:"kind"`
	Detail string `json:"detail,omitempty"`
	Ops    []Op   `json:"ops"`
}

// Changes reports whether the step touches any file.
func (s *Step) Changes() bool { return len(s.Ops) > 0 }

// PlanInstall decides, for each of Names, how to put our shim in place
// without losing a byte of what is there. With force, our current shims
// are rewritten anyway and a conflict is resolved by moving the occupant
// of the chained slot to a numbered backup (NAME.agentx-chained.1, ...)
// before chaining the current foreign hook: still nothing is deleted.
func PlanInstall(s *Snapshot, force bool) []Step {
	var steps []Step
	for _, name := range Names() {
		chained := name + ChainedSuffix
		data, exists := s.file(name)
		cdata, chainTaken := s.file(chained)
		st := Step{Hook: name, Ops: []Op{}}
		if chainTaken && IsOurs(cdata) {
			// A shim of ours in the chained slot (moved there by hand)
			// would run itself forever: it is dropped, not chained.
			st.Ops = append(st.Ops, Op{Op: "remove", To: chained})
			chainTaken = false
		}
		switch {
		case !exists:
			st.Kind = Create
			if chainTaken {
				st.Detail = "the shim runs " + chained + " first"
			}
			st.Ops = append(st.Ops, Op{Op: "write", To: name})
		case IsOurs(data):
			switch {
			case string(data) != Shim(name):
				st.Kind, st.Detail = Replace, "an older agentx shim"
				st.Ops = append(st.Ops, Op{Op: "write", To: name})
			case force:
				st.Kind, st.Detail = Replace, "rewritten (--force)"
				st.Ops = append(st.Ops, Op{Op: "write", To: name})
			default:
				st.Kind, st.Detail = Keep, "up to date"
			}
		case Manager(s.HooksPath, data) == "husky":
			st.Kind = Managed
			st.Detail = "husky runs hooks by file name, so it is not moved; add `agentx-hook git-hook " + name + " \"$@\"` to husky's " + name + " script (https://github.com/agentx-dev/agentx/blob/main/hooks/README.md)"
		case s.Tracked[name]:
			st.Kind = Managed
			st.Detail = "tracked by the repository, so it is not moved; add `agentx-hook git-hook " + name + " \"$@\"` to it (https://github.com/agentx-dev/agentx/blob/main/hooks/README.md)"
		case !chainTaken:
			st.Kind = Chain
			st.Detail = "existing hook kept as " + chained + " and run first"
			if m := Manager("", data); m != "" {
				st.Detail += " (" + m + ")"
			}
			st.Ops = append(st.Ops, Op{Op: "rename", From: name, To: chained}, Op{Op: "write", To: name})
		case force:
			backup := freeBackup(s, chained)
			st.Kind = Chain
			st.Detail = "previously chained hook moved to " + backup + "; existing hook kept as " + chained
			st.Ops = append(st.Ops, Op{Op: "rename", From: chained, To: backup},
				Op{Op: "rename", From: name, To: chained}, Op{Op: "write", To: name})
		default:
			st.Kind = Conflict
			st.Detail = "a foreign " + name + " and " + chained + " both exist; left alone (--force keeps both and chains the current one)"
		}
		steps = append(steps, st)
	}
	return steps
}

// freeBackup returns the first NAME.agentx-chained.N not in s.
func freeBackup(s *Snapshot, chained string) string {
	for n := 1; ; n++ {
		b := chained + "." + strconv.Itoa(n)
		if _, ok := s.file(b); !ok {
			return b
		}
	}
}

// PlanUninstall removes our shims and renames chained hooks back. A
// foreign hook sitting where our shim was is never touched, even when a
// chained hook waits behind it: that is reported as a conflict.
func PlanUninstall(s *Snapshot) []Step {
	var steps []Step
	for _, name := range Names() {
		chained := name + ChainedSuffix
		data, exists := s.file(name)
		cdata, hasChained := s.file(chained)
		ours := exists && IsOurs(data)
		st := Step{Hook: name, Ops: []Op{}}
		if hasChained && IsOurs(cdata) {
			st.Ops = append(st.Ops, Op{Op: "remove", To: chained}) // see PlanInstall
			hasChained = false
		}
		switch {
		case exists && !ours && hasChained:
			st.Kind = Conflict
			st.Detail = "a foreign " + name + " replaced our shim; " + chained + " left for you to sort out"
		case exists && !ours:
			st.Kind, st.Detail = Foreign, "not ours; left alone"
		case hasChained:
			st.Kind, st.Detail = Restore, chained+" renamed back to "+name
			if ours {
				st.Ops = append(st.Ops, Op{Op: "remove", To: name})
			}
			st.Ops = append(st.Ops, Op{Op: "rename", From: chained, To: name})
		case ours:
			st.Kind = Remove
			st.Ops = append(st.Ops, Op{Op: "remove", To: name})
		default:
			st.Kind = Absent
		}
		steps = append(steps, st)
	}
	return steps
}

// HookStatus is what one hook slot holds now.
type HookStatus struct {
	Hook string `json:"hook"`
	// State is "installed" (our current shim), "outdated" (our shim of
	// another version), "foreign" (someone else's hook) or "missing".
	State string `json:"state"`
	// Chained is set when NAME.agentx-chained exists.
	Chained bool `json:"chained"`
	// Manager is the hooks manager a foreign or chained hook belongs to.
	Manager string `json:"manager,omitempty"`
	// Tracked is set when the repository tracks the hook file.
	Tracked bool `json:"tracked,omitempty"`
	// Backups are numbered NAME.agentx-chained.N files left by --force.
	Backups []string `json:"backups,omitempty"`
}

// Status reports each of Names in s.
func Status(s *Snapshot) []HookStatus {
	hooksPath := s.HooksPath
	var out []HookStatus
	for _, name := range Names() {
		chained := name + ChainedSuffix
		data, exists := s.file(name)
		cdata, hasChained := s.file(chained)
		hs := HookStatus{Hook: name, Chained: hasChained, Tracked: s.Tracked[name]}
		switch {
		case !exists:
			hs.State = "missing"
		case !IsOurs(data):
			hs.State = "foreign"
			hs.Manager = Manager(hooksPath, data)
		case string(data) == Shim(name):
			hs.State = "installed"
		default:
			hs.State = "outdated"
		}
		if hs.Manager == "" && hasChained {
			hs.Manager = Manager(hooksPath, cdata)
		}
		if hs.Manager == "" && hooksPath != "" {
			hs.Manager = Manager(hooksPath, nil)
		}
		for f := range s.Files {
			if rest, ok := strings.CutPrefix(f, chained+"."); ok && rest != "" {
				hs.Backups = append(hs.Backups, f)
			}
		}
		sort.Strings(hs.Backups)
		out = append(out, hs)
	}
	return out
}

// Summary is the hook's state in words for a hooks listing: the state,
// then what runs first, whose it is, and what --force left beside it.
func (h HookStatus) Summary() string {
	s := h.State
	if h.Chained {
		s += ", runs " + h.Hook + ChainedSuffix + " first"
	}
	if h.Manager != "" {
		s += " (" + h.Manager + ")"
	}
	if h.Tracked {
		s += ", tracked by the repository"
	}
	if len(h.Backups) > 0 {
		s += "; backups: " + strings.Join(h.Backups, ", ")
	}
	return s
}

// Summary is what the step does in words: its kind, and why.
func (s Step) Summary() string {
	if s.Detail != "" {
		return string(s.Kind) + ": " + s.Detail
	}
	return string(s.Kind)
}
