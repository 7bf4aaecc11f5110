package actioncmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/sync"
)

// readPeopleInputs reads who may run commands beyond the associations
// (min-permission, reply-to-outsiders) and the monitor's reconcile slice
// (reconcile-per-run).
func readPeopleInputs(gha *githubactions.Action, in *inputs) error {
	in.minPermission = strings.ToLower(orDefault(gha.GetInput("min-permission"), "write"))
	if !sync.ValidRole(in.minPermission) {
		return fmt.Errorf("input min-permission: %q is not one of read, triage, write, maintain, admin", in.minPermission)
	}
	var err error
	if in.replyToOutsiders, err = boolInput(gha, "reply-to-outsiders"); err != nil {
		return err
	}
	in.reconcile = sync.DefaultReconcile
	if v := gha.GetInput("reconcile-per-run"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("input reconcile-per-run: %q is not a number of issues (0 turns the check off)", v)
		}
		in.reconcile = n
	}
	return nil
}

// sweep applies the /clarify commands no ingest run answered since the
// last sweep (their run was cancelled in GitHub's pending queue, or lost
// to an outage), and has the sync that follows record where it ended.
func (a *App) sweep(ctx context.Context, in *inputs, gh *sync.Client, sb *sync.StateBranch, st *sync.State,
	syncer *sync.Syncer, cfg *config.Set, warn func(string, ...any)) error {
	since, _ := time.Parse(time.RFC3339, st.SweptUntil)
	ing := &sync.Ingester{GH: gh, Config: cfg, State: sb, Bot: in.bot, Associations: in.associations, Users: in.users,
		MinPermission: in.minPermission, ReplyToOutsiders: in.replyToOutsiders, Clock: a.Clock, Clean: Clean,
		DryRun: in.dryRun, Warn: warn}
	sw := &sync.Sweep{Ingester: ing, Clock: a.Clock, Warn: warn}
	until, err := sw.Run(ctx, since)
	ing.Counts.CommandsSwept = sw.Found
	syncer.Recheck = sw.Duplicated
	syncer.Counts.Add(ing.Counts)
	if sw.Found > 0 {
		fmt.Fprintf(a.Stderr, "agentx-action monitor: the sweep found %d /clarify commands no ingest run answered\n", sw.Found)
	}
	if err != nil {
		return err
	}
	if until.After(since) && sw.Listed > 0 {
		syncer.SweptUntil = until
	}
	return nil
}
