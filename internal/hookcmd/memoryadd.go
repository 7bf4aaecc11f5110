package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// memoryAddOptions is `memory add`'s command line.
type memoryAddOptions struct {
	File                   string // --file: a batch instead of one TEXT
	Agent, Issue, Category string
	Session, ID            string
	Text                   string // the positionals, joined
	jsonFlag
}

const memoryAddUsage = "memory add --agent A --issue N --category C [--session S] TEXT\n       agentx-hook memory add --file F\n\nStores one observation by hand, or a batch from F (a JSON array of observations\nlike [{\"agent\": \"engineer\", \"issueNumber\": 42, \"category\": \"decision\", \"content\": \"...\"}],\nor a memory issue file); captures normally come from `hook finish`."

func parseMemoryAdd(a *App, args []string) (*memoryAddOptions, error) {
	o := &memoryAddOptions{}
	flags := newFlags(a, "memory add", memoryAddUsage)
	flags.StringVar(&o.File, "file", "", "store the observations in JSON file `F` (- for stdin)")
	flags.StringVar(&o.Agent, "agent", "", "the observing agent `A`")
	flags.StringVar(&o.Issue, "issue", "", "issue `N`")
	flags.StringVar(&o.Category, "category", "key-fact", "category `C`, one of decision, code-change, error, key-fact or compaction-summary")
	flags.StringVar(&o.Session, "session", "", "session ID `S`")
	flags.StringVar(&o.ID, "id", "", "use this observation `ID` instead of a new one (imports, scripted demos)")
	o.register(flags)
	pos, err := parse(flags, args)
	o.Text = strings.TrimSpace(strings.Join(pos, " "))
	if err != nil || o.File != "" {
		return o, err
	}
	if o.Agent == "" || o.Issue == "" {
		return o, usagef("memory add needs --agent A and --issue N (or --file F)")
	}
	return o, nil
}

func runMemoryAdd(ctx context.Context, a *App, o *memoryAddOptions) error {
	if o.File != "" {
		return addFromFile(ctx, a, o.File, o.JSON)
	}
	obs, changed, err := memory.ByHand(o.ID, o.Agent, o.Issue, o.Category, o.Session, o.Text,
		func(agent string) error { return config.CheckAgentName("--agent", agent, a.Config) })
	if errors.Is(err, memory.ErrNoText) {
		return usagef("memory add needs the observation TEXT")
	}
	if err != nil {
		return err
	}
	if err := a.configForWrite(); err != nil {
		return err
	}
	if changed != 0 {
		a.warn("%s before storing", changed)
	}
	st := a.Memory()
	st.AuditOp = memory.OpAdd
	stored, dups, err := st.StoreReport(ctx, []memory.Observation{obs})
	if err != nil {
		return err
	}
	if o.JSON {
		return a.writeDoc(memory.NewStoredDoc(stored, dups))
	}
	if len(stored) == 0 && len(dups) == 1 {
		fmt.Fprintf(a.Stdout, "Already stored as %s (same id, or same agent, issue and content); nothing added.\n", dups[0].Existing)
		return nil
	}
	fmt.Fprintln(a.Stdout, stored[0].ID)
	return nil
}

func addFromFile(ctx context.Context, a *App, path string, asJSON bool) error {
	var data []byte
	var err error
	if path == "-" {
		data, err = atomicfile.ReadAllLimited(a.Stdin, a.settings().Limits.InputFileBytes())
		if err != nil {
			err = errcode.Wrap(errcode.InvalidInput, err, "memory add --file -")
		}
	} else {
		data, err = a.readInputFile("memory add --file", path)
	}
	if err != nil {
		return err
	}
	obs, err := memory.PrepareBatch("memory add --file", path, data)
	if err != nil {
		return err
	}
	if err := a.configForWrite(); err != nil {
		return err
	}
	a.warnUnknownAgents(path, obs)
	if len(obs) == 0 {
		if asJSON {
			return a.writeDoc(memory.NewStoredDoc(nil, nil))
		}
		fmt.Fprintf(a.Stdout, "Nothing to store: %s holds no observations.\n", path)
		return nil
	}
	stored, dups, err := a.Memory().StoreReport(ctx, obs)
	if err != nil {
		return err
	}
	if asJSON {
		return a.writeDoc(memory.NewStoredDoc(stored, dups))
	}
	fmt.Fprintf(a.Stdout, "Stored %d of %d observations.\n", len(stored), len(obs))
	for _, d := range dups {
		fmt.Fprintf(a.Stdout, "already stored: %s (%s, issue #%d)\n", d.Existing, d.Agent, d.Issue)
	}
	return nil
}

// warnUnknownAgents names, in one warning, the agents of an import that
// no workflow of this repository knows. They are stored all the same: an
// import comes from another repository, whose workflows may differ, and
// memory add TEXT's refusal of an unknown --agent would lose the rest of
// a batch over one name; but a typo must not go in unseen.
func (a *App) warnUnknownAgents(path string, obs []memory.Observation) {
	cfg, err := a.Config()
	if err != nil {
		return
	}
	known := cfg.KnownAgents()
	if len(known) == 0 {
		return // as CheckAgent: no workflow names any agent
	}
	unknown := map[string]bool{}
	for i := range obs {
		if !known[obs[i].Agent] {
			unknown[obs[i].Agent] = true
		}
	}
	if len(unknown) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(unknown))
	if len(names) > maxNamedAgents {
		names = append(names[:maxNamedAgents], fmt.Sprintf("and %d more", len(unknown)-maxNamedAgents))
	}
	a.warn("memory add --file: %s: agents no workflow here knows: %s (stored as they are; agents come from .agentx/workflows/ and [agents] or [responders] in .agentx/agentx.toml)",
		path, strings.Join(names, ", "))
}

// maxNamedAgents is how many unknown agents the import's warning names;
// the others are counted.
const maxNamedAgents = 5

// configForWrite stops memory add, once its input is checked, when the
// configuration does not parse, as it stops clarify request: without it
// the agent was checked against no workflow (a typo would be stored for
// good) and the store's layout ([memory] manifest) would be guessed.
func (a *App) configForWrite() error {
	_, err := a.Config()
	return err
}
