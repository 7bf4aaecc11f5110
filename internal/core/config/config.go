// Package config owns the toolkit's configuration: `.agentx/agentx.toml`
// (mode, responders, memory, GitHub settings, agent priority) and the
// workflow files `.agentx/workflows/*.toml` whose steps carry the
// clarification scope (can_clarify, round limits, SLA, blocking).
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// The original specification's defaults (its section 9.5), kept by the old tools.
const (
	DefaultMaxRoundsBlocking    = 5
	DefaultMaxRoundsNonBlocking = 6
	DefaultSLAMinutes           = 30
	DefaultResponderTimeout     = 2 * time.Minute
	DefaultMemoryMaxTokens      = 20000
	// MaxRoundsLimit and MaxSLAMinutes bound what a workflow may ask for.
	MaxRoundsLimit = 100
	MaxSLAMinutes  = 60 * 24 * 366
)

// DefaultPriority is the deadlock-break order: lower index wins.
var DefaultPriority = []string{"product-manager", "architect", "ux-designer", "engineer",
	"reviewer", "devops", "devops-engineer", "data-scientist", "tester", "customer-coach"}

// Config is agentx.toml.
type Config struct {
	Mode            string               `toml:"mode"`
	DefaultWorkflow string               `toml:"default_workflow"`
	Agents          []string             `toml:"agents"`
	Priority        []string             `toml:"priority"`
	Responders      map[string]Responder `toml:"responders"`
	Clarify         ClarifySettings      `toml:"clarify"`
	Memory          MemorySettings       `toml:"memory"`
	Retention       RetentionSettings    `toml:"retention"`
	GitHub          GitHubSettings       `toml:"github"`
	Limits          LimitsSettings       `toml:"limits"`
	Hooks           HooksSettings        `toml:"hooks"`
	Checkpoints     CheckpointSettings   `toml:"checkpoints"`
	People          People               `toml:"people"` // people.go
	// Warnings are the problems found while parsing that do not stop the
	// file loading (unknown keys, an unknown mode), each naming the file
	// and line; the CLI prints them.
	Warnings []string `toml:"-"`
	// WarningsAt are the same, with their line and kind apart (verify).
	WarningsAt []Warning `toml:"-"`
}

// ClarifySettings tune the protocol for the workspace.
type ClarifySettings struct {
	// LockStaleSeconds overrides the 30 s stale-lock threshold.
	LockStaleSeconds int `toml:"lock_stale_seconds"`
	// PersonSLA is how long a question to a person waits when the person
	// names no sla (default DefaultPersonSLA).
	PersonSLA Duration `toml:"person_sla"`
}

// Responder is a program the hub runs to get the target agent's answer.
type Responder struct {
	Command []string `toml:"command"`
	Timeout Duration `toml:"timeout"`
}

// MemorySettings is the [memory] table.
type MemorySettings struct {
	Enabled   *bool `toml:"enabled"`
	MaxTokens *int  `toml:"max_tokens"`
	// Manifest is how manifest.json is kept: "index" (default) writes
	// none, the store being its issue files and the search index (whose
	// rows point into them); "delta" renders it (one entry a line) when
	// the store's delta is compacted; "reference" renders it at every
	// write in the reference tools' layout, complete for them at the cost
	// of a write in proportion to the store (docs/formats.md).
	Manifest string `toml:"manifest"`
}

// Manifest modes of [memory] manifest.
const (
	ManifestIndex     = "index"
	ManifestDelta     = "delta"
	ManifestReference = "reference"
)

// ReferenceManifest reports whether every write renders manifest.json.
func (m MemorySettings) ReferenceManifest() bool { return m.Manifest == ManifestReference }

// NoManifest reports whether no manifest.json is written (the default).
func (m MemorySettings) NoManifest() bool { return m.Manifest == "" || m.Manifest == ManifestIndex }

// IsEnabled reports whether memory is on (default true).
func (m MemorySettings) IsEnabled() bool { return m.Enabled == nil || *m.Enabled }

// Budget is the recall budget in tokens (default 20,000; 0 disables recall).
func (m MemorySettings) Budget() int {
	if m.MaxTokens == nil {
		return DefaultMemoryMaxTokens
	}
	return *m.MaxTokens
}

// RetentionSettings is the [retention] table: how the memory store stays
// bounded by itself. The hooks apply it a slice at a time (one issue file
// per `hook finish`), `memory compact --auto` all at once.
type RetentionSettings struct {
	// ArchiveAfterDays archives an observation nobody recalled (or wrote)
	// for that many days (default DefaultArchiveAfterDays, the reference
	// tools' staleArchiveAfterDays; 0 turns archiving off).
	ArchiveAfterDays *int `toml:"archive_after_days"`
	// CompactOver compacts an issue holding more observations than this
	// (default DefaultCompactOver; 0 turns it off).
	CompactOver *int `toml:"compact_over"`
}

// Retention defaults and bounds.
const (
	DefaultArchiveAfterDays = 90
	DefaultCompactOver      = 200
	// MaxArchiveAfterDays (100 years) and MinCompactOver (compaction
	// halves an issue: below this it would churn through small ones)
	// bound what [retention] may ask for.
	MaxArchiveAfterDays = 36600
	MinCompactOver      = 10
)

// ArchiveAfter is [retention] archive_after_days as a duration (0: off).
func (r RetentionSettings) ArchiveAfter() time.Duration {
	d := DefaultArchiveAfterDays
	if r.ArchiveAfterDays != nil {
		d = *r.ArchiveAfterDays
	}
	return time.Duration(d) * 24 * time.Hour
}

// CompactOverOr is [retention] compact_over, or the default (0: off).
func (r RetentionSettings) CompactOverOr() int {
	if r.CompactOver == nil {
		return DefaultCompactOver
	}
	return *r.CompactOver
}

// GitHubSettings is the [github] table.
type GitHubSettings struct {
	Repo         string `toml:"repo"`
	BlockedLabel string `toml:"blocked_label"`
	// StateBranch and Remote name the branch carrying the shared state in
	// GitHub Mode (empty: agentx/state on origin); SyncBudget bounds the
	// pull of `hook start` and the push of `hook finish` (empty: 3s);
	// SyncTimeout bounds a whole `agentx-hook sync` (empty:
	// DefaultSyncTimeout), which a person or a script waits on.
	StateBranch string   `toml:"state_branch"`
	Remote      string   `toml:"remote"`
	SyncBudget  Duration `toml:"sync_budget"`
	SyncTimeout Duration `toml:"sync_timeout"`
}

// DefaultSyncTimeout bounds `agentx-hook sync` when neither --timeout nor
// [github] sync_timeout says: long enough for a first push of a large
// state over a slow link, short enough that a script never hangs on a
// dead network or a prompt nobody sees.
const DefaultSyncTimeout = 2 * time.Minute

// SyncTimeoutOr is [github] sync_timeout, or the default.
func (g GitHubSettings) SyncTimeoutOr() time.Duration {
	if g.SyncTimeout.Duration <= 0 {
		return DefaultSyncTimeout
	}
	return g.SyncTimeout.Duration
}

// LimitsSettings is the [limits] table: how much agentx reads of what it
// is given.
type LimitsSettings struct {
	// InputFile bounds every file named on a command line or in a payload
	// and read whole: --summary-file, memory capture --file, memory add
	// --file (default 10 MB). A larger file is refused, naming the limit.
	InputFile ByteSize `toml:"input_file"`
	// Transcript bounds how much of a host transcript one capture reads
	// (default 16 MB); a longer new segment is read from its end.
	Transcript ByteSize `toml:"transcript"`
}

// InputFileBytes is [limits] input_file, or the default.
func (l LimitsSettings) InputFileBytes() int64 {
	if l.InputFile <= 0 {
		return atomicfile.DefaultInputLimit
	}
	return int64(l.InputFile)
}

// HooksSettings is the [hooks] table.
type HooksSettings struct {
	// Deadline bounds a whole hook run (hook start, hook finish, git-hook):
	// past it, the steps not begun are skipped, named in one warning, and
	// the hook exits 0 (default DefaultHookDeadline).
	Deadline Duration `toml:"deadline"`
	// DefaultAgent is the agent a hook session is when neither --agent,
	// $AGENTX_AGENT nor the host's payload names one (Codex's and
	// Copilot's never do): a first session works with no other setup.
	DefaultAgent string `toml:"default_agent"`
}

// FallbackAgent is the hooks' agent when [hooks] default_agent is not set
// either: the one the git post-commit hook records commits as.
const FallbackAgent = "engineer"

// DefaultAgentOr is [hooks] default_agent, or FallbackAgent.
func (h HooksSettings) DefaultAgentOr() string {
	if h.DefaultAgent == "" {
		return FallbackAgent
	}
	return h.DefaultAgent
}

// DefaultHookDeadline is a hook's overall deadline when [hooks] deadline is
// not set: under the 60 s Claude Code and Codex give a hook by default,
// with room for the host itself.
const DefaultHookDeadline = 10 * time.Second

// MaxHookDeadline is the longest deadline `hook --deadline` and [hooks]
// deadline take: a hook
// runs while its host waits (Claude Code and Codex give one 60 s by
// default, configurable), so a longer one is a typo, not a wish.
const MaxHookDeadline = 10 * time.Minute

// DeadlineOr is [hooks] deadline, or the default.
func (h HooksSettings) DeadlineOr() time.Duration {
	if h.Deadline.Duration <= 0 {
		return DefaultHookDeadline
	}
	return h.Deadline.Duration
}

// CheckpointSettings is the [checkpoints] table.
type CheckpointSettings struct {
	// Keep is how many checkpoints are kept at least (default 50; the
	// oldest are pruned, back to Keep, when new ones make more than
	// Keep + Keep/10).
	Keep *int `toml:"keep"`
	// OnHookFinish takes a checkpoint at every `hook finish` (default false:
	// a session's captures are small and frequent; the commands that
	// rewrite or drop state take their own).
	OnHookFinish bool `toml:"on_hook_finish"`
}

// KeepOr is Keep, or def when unset or not positive.
func (c CheckpointSettings) KeepOr(def int) int {
	if c.Keep == nil || *c.Keep < 1 {
		return def
	}
	return *c.Keep
}

// TimeoutOr returns the responder's timeout or the default.
func (r Responder) TimeoutOr() time.Duration {
	if r.Timeout.Duration <= 0 {
		return DefaultResponderTimeout
	}
	return r.Timeout.Duration
}

// Set is the whole configuration of a workspace.
type Set struct {
	Config    Config
	Workflows []Workflow // sorted by name
}

// ParseConfig decodes agentx.toml content.
func ParseConfig(path string, data []byte) (Config, error) {
	var c Config
	if err := checkShape(path, data); err != nil {
		return c, err
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return c, tomlErr(path, err)
	}
	if err := checkConfig(path, &c); err != nil {
		return c, err
	}
	c.WarningsAt = append(warnings(path, data, md, c), peopleWarnings(path, data, c)...)
	c.Warnings = printed(path, c.WarningsAt)
	return c, nil
}

func tomlErr(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		e := errcode.New(errcode.CorruptState, "%s is not valid TOML (line %d, column %d): %s",
			path, pe.Position.Line, pe.Position.Col, pe.Message)
		e.Err = err
		return e
	}
	return errcode.Wrap(errcode.CorruptState, err, "%s is not valid", path)
}

// Load reads agentx.toml (optional) and every workflow file.
func Load(configFile, workflowsDir string) (*Set, error) {
	set := &Set{}
	var configData []byte
	if data, err := atomicfile.ReadRegular(configFile, MaxFileBytes); err == nil {
		if set.Config, err = ParseConfig(configFile, data); err != nil {
			return nil, err
		}
		configData = data
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", configFile, err)
	}
	entries, err := os.ReadDir(workflowsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list %s: %w", workflowsDir, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		p := filepath.Join(workflowsDir, e.Name())
		data, err := atomicfile.ReadRegular(p, MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		w, err := ParseWorkflow(p, data)
		if err != nil {
			return nil, err
		}
		set.Workflows = append(set.Workflows, w)
	}
	sort.Slice(set.Workflows, func(i, j int) bool { return set.Workflows[i].Name < set.Workflows[j].Name })
	set.warnShadowedPeople(configFile, configData)
	return set, nil
}

// RequireAgents refuses a workspace whose workflows name no agent: before
// `init` there are none, and that is what a request must say rather than
// "unknown agent (known: )". root names the workspace.
func (s *Set) RequireAgents(root string) error {
	if len(s.KnownAgents()) == 0 {
		return errcode.New(errcode.InvalidInput, "no agents are configured in %s (no workflows in .agentx/workflows/)", root).
			WithHint("run `agentx-hook init` to create the default config and workflows")
	}
	return nil
}

// KnownAgents is every agent the configuration names: step agents, their
// can_clarify targets, responders, the agents list and the priority list.
func (s *Set) KnownAgents() map[string]bool {
	known := map[string]bool{}
	for _, a := range s.Config.Agents {
		known[a] = true
	}
	for a := range s.Config.Responders {
		known[a] = true
	}
	for _, w := range s.Workflows {
		for _, st := range w.Steps {
			if st.Agent != "" {
				known[st.Agent] = true
			}
			for _, a := range st.CanClarify {
				known[a] = true
			}
		}
	}
	return known
}

// KnownAgentNames is KnownAgents sorted, for messages and completion.
func (s *Set) KnownAgentNames() []string {
	known := s.KnownAgents()
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CheckAgent refuses an agent name the workflows and config do not know,
// when they name any: a typo (`--agent enginer`) would otherwise file
// memory under an agent no session ever recalls. flag names where the
// name came from.
func (s *Set) CheckAgent(flag, agent string) error {
	known := s.KnownAgents()
	if len(known) == 0 || known[agent] {
		return nil
	}
	return errcode.New(errcode.InvalidInput, "%s: unknown agent %q (known: %s)", flag, agent, strings.Join(s.KnownAgentNames(), ", ")).
		WithHint("agents come from .agentx/workflows/ and [agents] or [responders] in .agentx/agentx.toml")
}

// Priority is the configured deadlock-break order, or the default.
func (s *Set) Priority() []string {
	if len(s.Config.Priority) > 0 {
		return s.Config.Priority
	}
	return DefaultPriority
}
