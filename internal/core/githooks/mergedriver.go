package githooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
)

// The git merge driver for state files kept on code branches (Local Mode):
// git config names the command, .gitattributes says which files use it.
// The config is the clone's own (.git/config, every clone installs it);
// the attributes are committed, and a clone without the driver configured
// simply merges those files as text, as before.
const (
	// MergeDriverName is the driver's name in `merge=NAME` and in
	// merge.NAME.* config keys.
	MergeDriverName = "agentx"
	// MergeDriverCommand is merge.agentx.driver: git substitutes the
	// base (%O), ours (%A, also where the result goes), theirs (%B) and
	// the path in the repository (%P).
	MergeDriverCommand = "agentx-hook merge-driver %O %A %B %P"
	// MergeDriverLabel is merge.agentx.name, what git shows for it.
	MergeDriverLabel = "agentx semantic merge of clarification ledgers and memory"
	// attributesComment introduces our lines in .gitattributes.
	attributesComment = "# agentx: semantic merge of state files (agentx-hook hooks install --merge-driver)"
)

// MergeAttributes are the .gitattributes lines, relative to the directory
// that holds .agentx/ (the workspace root, where the file goes).
func MergeAttributes() []string {
	return []string{
		".agentx/state/clarifications/issue-*.json merge=" + MergeDriverName,
		".agentx/memory/issue-*.json merge=" + MergeDriverName,
		".agentx/memory/archive/*.json merge=" + MergeDriverName,
		// The audit trail merges by keeping both sides' lines (git's own
		// union driver): every line still names an earlier one, so the
		// union verifies (docs/verify.md).
		".agentx/state/audit*.jsonl merge=union",
	}
}

// MergeDriverStatus is what is configured now.
type MergeDriverStatus struct {
	// Driver is merge.agentx.driver ("" when unset).
	Driver string `json:"driver"`
	// Installed is set when the driver is our command and every
	// attribute line is present.
	Installed bool `json:"installed"`
	// Attributes is the .gitattributes file the lines go in.
	Attributes string `json:"attributesFile"`
	// Missing are our attribute lines not in the file.
	Missing []string `json:"missingAttributes,omitempty"`
	// Changes are what an install or uninstall did, one phrase each.
	Changes []string `json:"changes,omitempty"`
}

// AddAttributes returns data with the lines of MergeAttributes that it
// lacks appended (after our comment line), leaving every existing line as
// it is; added is empty when nothing was missing.
func AddAttributes(data []byte) (out []byte, added []string) {
	have := attributeSet(data)
	for _, l := range MergeAttributes() {
		if !have[l] {
			added = append(added, l)
		}
	}
	if len(added) == 0 {
		return data, nil
	}
	out = append([]byte(nil), data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if !have[attributesComment] {
		out = append(out, attributesComment+"\n"...)
	}
	for _, l := range added {
		out = append(out, l+"\n"...)
	}
	return out, added
}

// RemoveAttributes returns data without our lines (and our comment);
// every other line stays, byte for byte.
func RemoveAttributes(data []byte) (out []byte, removed []string) {
	ours := map[string]bool{attributesComment: true}
	for _, l := range MergeAttributes() {
		ours[l] = true
	}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := strings.TrimSpace(string(line))
		if ours[t] {
			if t != attributesComment {
				removed = append(removed, t)
			}
			continue
		}
		out = append(out, line...)
	}
	return out, removed
}

// attributeSet is the set of trimmed lines of a .gitattributes file.
func attributeSet(data []byte) map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		m[strings.TrimSpace(line)] = true
	}
	return m
}

// MergeDriverState reads the driver's config and the attributes file.
func MergeDriverState(ctx context.Context, r gitcmd.Runner, attributesFile string) (MergeDriverStatus, error) {
	st := MergeDriverStatus{Attributes: attributesFile}
	// git config merge.agentx.driver: exit status 1 means unset.
	out, err := r.Git(ctx, "config", "merge."+MergeDriverName+".driver")
	if err == nil {
		st.Driver = strings.TrimSpace(out)
	}
	data, err := readOptional(attributesFile)
	if err != nil {
		return st, err
	}
	have := attributeSet(data)
	for _, l := range MergeAttributes() {
		if !have[l] {
			st.Missing = append(st.Missing, l)
		}
	}
	st.Installed = st.Driver == MergeDriverCommand && len(st.Missing) == 0
	return st, nil
}

// InstallMergeDriver configures the driver in the repository's config and
// adds the attribute lines; running it again changes nothing.
func InstallMergeDriver(ctx context.Context, r gitcmd.Runner, attributesFile string) (MergeDriverStatus, error) {
	st, err := MergeDriverState(ctx, r, attributesFile)
	if err != nil {
		return st, err
	}
	if st.Driver != MergeDriverCommand {
		// git config merge.agentx.name LABEL; git config merge.agentx.driver CMD
		if _, err := r.Git(ctx, "config", "merge."+MergeDriverName+".name", MergeDriverLabel); err != nil {
			return st, err
		}
		if _, err := r.Git(ctx, "config", "merge."+MergeDriverName+".driver", MergeDriverCommand); err != nil {
			return st, err
		}
		if st.Driver == "" {
			st.Changes = append(st.Changes, "configured merge."+MergeDriverName+".driver")
		} else {
			st.Changes = append(st.Changes, fmt.Sprintf("replaced merge.%s.driver (was %q)", MergeDriverName, st.Driver))
		}
		st.Driver = MergeDriverCommand
	}
	data, err := readOptional(attributesFile)
	if err != nil {
		return st, err
	}
	if out, added := AddAttributes(data); len(added) > 0 {
		if err := atomicfile.Write(attributesFile, out, atomicfile.Options{Perm: 0o644, ClearDead: true}); err != nil {
			return st, fmt.Errorf("write %s: %w", attributesFile, err)
		}
		st.Changes = append(st.Changes, fmt.Sprintf("added %d line(s) to %s", len(added), attributesFile))
	}
	st.Missing, st.Installed = nil, true
	return st, nil
}

// UninstallMergeDriver removes the driver's config and our attribute
// lines. A .gitattributes left empty is removed.
func UninstallMergeDriver(ctx context.Context, r gitcmd.Runner, attributesFile string) (MergeDriverStatus, error) {
	st, err := MergeDriverState(ctx, r, attributesFile)
	if err != nil {
		return st, err
	}
	if st.Driver != "" {
		// git config --remove-section merge.agentx
		if _, err := r.Git(ctx, "config", "--remove-section", "merge."+MergeDriverName); err != nil {
			return st, err
		}
		st.Changes = append(st.Changes, "removed merge."+MergeDriverName+" from git config")
		st.Driver = ""
	}
	data, err := readOptional(attributesFile)
	if err != nil {
		return st, err
	}
	out, removed := RemoveAttributes(data)
	if !bytes.Equal(out, data) {
		if len(bytes.TrimSpace(out)) == 0 {
			err = os.Remove(attributesFile)
		} else {
			err = atomicfile.Write(attributesFile, out, atomicfile.Options{Perm: 0o644, ClearDead: true})
		}
		if err != nil {
			return st, fmt.Errorf("rewrite %s: %w", attributesFile, err)
		}
		st.Changes = append(st.Changes, fmt.Sprintf("removed %d line(s) from %s", len(removed), attributesFile))
	}
	st.Installed, st.Missing = false, MergeAttributes()
	return st, nil
}

func readOptional(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// AttributesFile is the .gitattributes beside .agentx/ under root, so the
// lines' patterns hold wherever the workspace sits in the repository.
func AttributesFile(root string) string { return filepath.Join(root, ".gitattributes") }

// ChangeMergeDriver is the merge driver's part of `hooks install` (only
// when requested) and `hooks uninstall` in the repository at root; nil
// when there is nothing to report.
func ChangeMergeDriver(ctx context.Context, root string, install, requested bool) (*MergeDriverStatus, error) {
	git := gitcmd.Exec{Dir: root}
	var st MergeDriverStatus
	var err error
	switch {
	case install && requested:
		st, err = InstallMergeDriver(ctx, git, AttributesFile(root))
	case !install:
		st, err = UninstallMergeDriver(ctx, git, AttributesFile(root))
		if err == nil && len(st.Changes) == 0 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("merge driver: %w", err)
	}
	return &st, nil
}

// MergeDriverAt is the merge driver's state in the repository at root.
func MergeDriverAt(ctx context.Context, root string) (*MergeDriverStatus, error) {
	st, err := MergeDriverState(ctx, gitcmd.Exec{Dir: root}, AttributesFile(root))
	if err != nil {
		return nil, fmt.Errorf("merge driver: %w", err)
	}
	return &st, nil
}

// Summary is the state in a few words for a hooks listing: what changed,
// else whether it is installed and what install would add.
func (st *MergeDriverStatus) Summary() string {
	if len(st.Changes) > 0 {
		return strings.Join(st.Changes, "; ")
	}
	switch {
	case st.Installed:
		return "installed"
	case st.Driver == "" && len(st.Missing) == len(MergeAttributes()):
		return "not installed (hooks install --merge-driver)"
	case st.Driver != MergeDriverCommand && st.Driver != "":
		return fmt.Sprintf("other command configured (%q)", st.Driver)
	default:
		return fmt.Sprintf("incomplete: driver %q, %d attribute line(s) missing (hooks install --merge-driver)", st.Driver, len(st.Missing))
	}
}
