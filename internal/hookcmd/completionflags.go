package hookcmd

import (
	"context"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/agentx-dev/agentx/internal/completion"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// commandFlags reads every command's flags from their definitions: each
// command (and each of its subcommands in subs) is parsed with --help on
// an App that collects the flag sets its parser makes, and writes nothing
// (the parsers return at --help, before anything runs). A new flag
// completes without an edit here.
func commandFlags(subs map[string][]string) map[string][]completion.Flag {
	out := map[string][]completion.Flag{}
	dir, err := os.MkdirTemp("", "agentx-complete-")
	if err != nil {
		return out
	}
	defer func() { _ = os.RemoveAll(dir) }()
	read := func(c command, path []string) []completion.Flag {
		var sets []*flag.FlagSet
		a := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" },
			Cwd: dir, rootFlag: dir, Clock: clock.Real{}, flagSets: &sets}
		_ = c.run(context.Background(), a, append(path, "--help"))
		if len(sets) == 0 {
			return nil
		}
		var fs []completion.Flag
		sets[len(sets)-1].VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			name := "--" + f.Name
			if len(f.Name) == 1 {
				name = "-" + f.Name
			}
			bf, isBool := f.Value.(interface{ IsBoolFlag() bool })
			fs = append(fs, completion.Flag{Name: name, Usage: usage, Value: !(isBool && bf.IsBoolFlag()), Values: flagValues(usage)})
		})
		return fs
	}
	for _, c := range commands() {
		if c.name == "completion" { // its flags are none, and its parser would build this tree again
			continue
		}
		if fs := read(c, nil); len(fs) > 0 {
			out[c.name] = fs
		}
		for _, sub := range subs[c.name] {
			if fs := read(c, []string{sub}); len(fs) > 0 {
				out[c.name+" "+sub] = fs
			}
		}
	}
	return out
}

// oneOf finds a fixed list of values in a flag's usage: "output form:
// md or json", "text, claude, codex or json", or a usage that starts with
// one ("local or github (default ...)").
// Compiled where used: a package-level regexp is compiled by every
// process at start, and only `completion` needs this one.
const oneOf = `(?:^|form:? |one of:? )((?:[a-z-]+, )*[a-z-]+ or [a-z-]+)\b`

// flagValues is the fixed list of values a usage names, if any.
func flagValues(usage string) []string {
	m := regexp.MustCompile(oneOf).FindStringSubmatch(usage)
	if m == nil {
		return nil
	}
	return strings.Fields(strings.NewReplacer(",", "", " or ", " ").Replace(m[1]))
}
