package hookcmd

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/suggest"
)

// newFlags returns a flag set whose --help prints usage and whose errors
// become usage errors.
func newFlags(a *App, name, usage string) *flag.FlagSet {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	a.flagsName = name
	if a.flagSets != nil {
		*a.flagSets = append(*a.flagSets, flags) // completion reads them (completionflags.go)
	}
	// flag calls Usage for a bad flag as well as for --help; the text is
	// held back and printed only for --help (see parse), so a usage error
	// leaves stdout empty, or holding only the --json error document.
	flags.SetOutput(&helpText{out: a.Stdout})
	flags.Usage = func() {
		w := flags.Output()
		fmt.Fprintf(w, "Usage: agentx-hook %s\n", usage)
		if !strings.Contains(usage, "\nExamples:") {
			printExamples(w, name) // helpexamples.go
		}
		var hasFlags bool
		flags.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(w, "\nFlags:")
			printFlags(w, flags)
		}
	}
	return flags
}

// printFlags lists flags as they are typed and as every message spells
// them (--issue N), where flag.PrintDefaults shows one dash; a default is
// shown unless the text already says it.
func printFlags(w io.Writer, flags *flag.FlagSet) {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	flags.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if len(f.Name) == 1 {
			left = "-" + f.Name // -m, as git spells it
		}
		if arg != "" {
			left += " " + arg
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" && !strings.Contains(usage, "default") {
			usage += " (default " + def + ")"
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
	}
}

// helpText collects what flag writes while parsing; parse passes it on to
// stdout only when the user asked for help.
type helpText struct {
	buf bytes.Buffer
	out io.Writer
}

func (h *helpText) Write(p []byte) (int, error) { return h.buf.Write(p) }

// parse parses flags anywhere among the arguments (Go's flag stops at the
// first positional) and returns the positionals. A bad flag is a usage
// error, but parsing goes on past it, so the options still hold what the
// rest of the line asked for: above all --json, which decides how the
// usage error itself is printed.
func parse(flags *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	var first error
	onlyOnce(flags)
	for {
		err := flags.Parse(args)
		rest := flags.Args()
		if errors.Is(err, flag.ErrHelp) && first == nil {
			if h, ok := flags.Output().(*helpText); ok {
				_, _ = h.out.Write(h.buf.Bytes())
			}
			return nil, errHelp
		}
		if err != nil {
			if first == nil {
				first = usagef("%s: %s", flags.Name(), flagError(flags, err))
			}
			if len(rest) == len(args) { // nothing consumed ("bad flag syntax"): skip it
				rest = rest[1:]
			}
			args = rest
			continue
		}
		if len(rest) == 0 {
			return pos, first
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), first
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError words a flag error in the style flags are shown in (--name;
// Go's flag echoes -name), with "did you mean" for a misspelt flag, and
// names the kind of value a flag takes where Go says only "parse error".
func flagError(flags *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		got := "--" + name
		var names []string
		flags.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
		return "unknown flag " + got + suggest.DidYouMean(got, names)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs a value"
	}
	if value, name, why, ok := badValue(msg); ok {
		return valueError(flags.Lookup(name), value, why)
	}
	return msg
}

// badValue splits Go's `invalid value "V" for flag -NAME: WHY` (and its
// boolean form, `invalid boolean value "V" for -NAME: WHY`).
func badValue(msg string) (value, name, why string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, "invalid boolean value "); !ok {
			return "", "", "", false
		}
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", "", false
	}
	if value, err = strconv.Unquote(quoted); err != nil {
		return "", "", "", false
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest[len(quoted):], " for flag -"), " for -")
	name, why, ok = strings.Cut(rest, ": ")
	return value, name, why, ok
}

// valueError words a value a flag refused: the flag's own reason when it
// gave one, else the kind of value it takes (from its type).
func valueError(f *flag.Flag, value, why string) string {
	if f == nil {
		return fmt.Sprintf("invalid value %q: %s", value, why)
	}
	name := dashed(f.Name)
	if why != "parse error" && why != "value out of range" {
		if strings.Contains(why, name) {
			return why // the flag's own message names it (--json="" names no field)
		}
		return fmt.Sprintf("%s %q: %s", name, value, why)
	}
	if why == "value out of range" {
		return fmt.Sprintf("%s %q is out of range", name, value)
	}
	kind := "a value of another form"
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			kind = "true or false (or no value)"
		case int, int64:
			kind = "a whole number"
		case uint, uint64:
			kind = "a whole number of 0 or more"
		case float64:
			kind = "a number"
		case time.Duration:
			kind = "a duration such as 10s or 2m"
		}
	}
	return fmt.Sprintf("%s takes %s, not %q", name, kind, value)
}

// dashed spells a flag as help shows it: --name, or -m for one letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// parseFlagsOnly is parse for a command that takes flags only: a
// positional is a usage error naming the command.
func parseFlagsOnly(flags *flag.FlagSet, args []string) error {
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("%s takes no arguments (got %q)", flags.Name(), pos[0])
	}
	return err
}

// formatFlag is --format FORM with --json as its short form, which wins
// over --format wherever it stands on the line.
type formatFlag struct {
	Format string
	// out is --json as typed (folded into Format by parse), with
	// --json=FIELDS, --jq and --template (jsonout.go).
	out jsonFlag
}

func (f *formatFlag) register(flags *flag.FlagSet, def, usage string) {
	flags.StringVar(&f.Format, "format", def, usage)
	flags.Var(jsonSwitch{&f.out}, "json", "same as --format json (--json=FIELD,... keeps those keys)")
	flags.Var(jsonExpr{&f.out, &f.out.JQ}, "jq", "filter the JSON document with a jq `expression` (implies --json)")
	flags.Var(jsonExpr{&f.out, &f.out.Template}, "template", "format the JSON document with a Go `template` (implies --json)")
}

// parse is parse with --json applied to Format, even after a usage error
// (it decides how that error is printed).
func (f *formatFlag) parse(flags *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parse(flags, args)
	if f.out.JSON {
		f.Format, f.out.JSON = "json", false
	}
	return pos, err
}

// jsonOutput is the --json settings, for writeDoc.
func (f *formatFlag) jsonOutput() *jsonFlag { return &f.out }

func (f *formatFlag) jsonMode() bool { return f.Format == "json" }

// parseOne is parse for a command that takes exactly one positional
// argument; otherwise the usage error is needs.
func parseOne(flags *flag.FlagSet, args []string, needs string) (string, error) {
	pos, err := parse(flags, args)
	if err == nil && len(pos) != 1 {
		err = usagef("%s", needs)
	}
	if err != nil {
		return "", err
	}
	return pos[0], nil
}
