package hookcmd

import (
	"slices"
	"strings"
)

// The checks every command but a few passes before it runs: the workspace
// exists and is contained, unless the command line is a mistake whose
// usage error says more.

// checkContained refuses, once and before the command runs, a workspace
// whose .agentx/, state, clarifications, memory or workflows directory is
// a symlink leading outside it: commands that never load the
// configuration (memory search, state, events, ready) would otherwise
// read and write through it. Hooks check it themselves (inWorkspace) and
// fail open; commands that do not touch .agentx/ are not stopped by it.
func (a *App) checkContained(name string, args []string) error {
	switch name {
	case "hook", "git-hook", "hooks", "merge-driver", "demo", "version", "completion":
		return nil
	}
	for _, arg := range args {
		if arg == "--help" || arg == "-h" || arg == "-help" {
			return nil
		}
	}
	// A subcommand the group does not have is the dispatcher's usage
	// error, in a workspace or not: a typo is a typo. Looked at only when
	// a check failed, so a command that runs pays nothing for it.
	if err := a.checkWorkspace(); err != nil {
		if unknownSubcommand(name, args) {
			return nil
		}
		return err
	}
	switch name {
	case "init", "setup", "doctor", "uninstall": // doctor reports a missing workspace as a finding; uninstall removes what is there
		return nil
	}
	if err := a.Workspace().CheckExists(); err != nil { // only init creates .agentx/
		switch {
		case unknownSubcommand(name, args):
			return nil
		case slices.Contains(args, "--json"):
			return &jsonFailure{err}
		}
		return err
	}
	return nil
}

// unknownSubcommand says whether args start with a subcommand the group
// name does not have (clarify, memory, checkpoint, artifact): its usage
// error, listing the group's subcommands, comes before any word about the
// workspace. Outside a repository `checkpoint nosuch` said there was no
// workspace.
func unknownSubcommand(name string, args []string) bool {
	if len(args) == 0 || args[0] == "" || strings.HasPrefix(args[0], "-") {
		return false
	}
	var ok bool
	switch name {
	case "clarify":
		_, ok = clarifySub(args[0])
	case "memory":
		_, ok = memorySubs()[args[0]]
	case "checkpoint":
		_, ok = checkpointSubs()[args[0]]
	case "artifact":
		_, ok = artifactSubs()[args[0]]
	default:
		return false
	}
	return !ok
}

// checkWorkspace refuses a .agentx/ (or its state or memory directory)
// symlinked outside the workspace. Once it holds, it is not checked again
// in this process: the command's check and Config's are one.
func (a *App) checkWorkspace() error {
	if a.contained {
		return nil
	}
	if err := a.Workspace().CheckContained(); err != nil {
		return err
	}
	a.contained = true
	return nil
}
