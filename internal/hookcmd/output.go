package hookcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/iostreams"
)

// How every command is wired: parseX(a, argv) fills xOptions (and returns
// them, as far as it read them, even with a usage error); runX(ctx, a, o)
// does the work and prints. wire joins the two and decides, from the
// parsed options alone, whether a failure is also printed as a --json
// document. Documents go through a.writeDoc, which stamps schema_version.

// jsonFlag is the --json switch of a command that prints a document,
// with gh's companions (jsonout.go): --json=FIELD,... keeps those keys,
// --jq EXPR filters the document, --template TEXT formats it.
type jsonFlag struct {
	JSON     bool
	Fields   []string
	JQ       string
	Template string
}

func (j *jsonFlag) register(flags *flag.FlagSet) {
	flags.Var(jsonSwitch{j}, "json", "print one JSON document (--json=FIELD,... keeps those keys)")
	flags.Var(jsonExpr{j, &j.JQ}, "jq", "filter the JSON document with a jq `expression` (implies --json)")
	flags.Var(jsonExpr{j, &j.Template}, "template", "format the JSON document with a Go `template` (implies --json)")
}

func (j *jsonFlag) jsonMode() bool { return j.JSON }

// jsonOutput is the options' --json settings, for writeDoc.
func (j *jsonFlag) jsonOutput() *jsonFlag { return j }

// jsonOnlyOptions is the command line of a command whose only flag is --json.
type jsonOnlyOptions struct{ jsonFlag }

// parseJSONOnly returns the parser of a command that takes --json and
// nothing else: a positional is refused, never ignored (`state engineer`
// is not a filter).
func parseJSONOnly(name, usage string) func(*App, []string) (*jsonOnlyOptions, error) {
	return jsonOnlyParser(name, usage, parseFlagsOnly)
}

// parseNoArgs returns the parser of a command that takes --json and no
// arguments.
func parseNoArgs(name, usage string) func(*App, []string) (*jsonOnlyOptions, error) {
	return jsonOnlyParser(name, usage, parseFlagsOnly)
}

func jsonOnlyParser(name, usage string, parseArgs func(*flag.FlagSet, []string) error) func(*App, []string) (*jsonOnlyOptions, error) {
	return func(a *App, args []string) (*jsonOnlyOptions, error) {
		o := &jsonOnlyOptions{}
		flags := newFlags(a, name, usage)
		o.register(flags)
		return o, parseArgs(flags, args)
	}
}

// jsonModer is implemented by options that can ask for a JSON document.
type jsonModer interface{ jsonMode() bool }

// wire joins a command's parse and run. A failure, of the parse or of the
// run, is marked for a JSON error document when the options asked for one.
func wire[O any](parseOpts func(*App, []string) (*O, error), run func(context.Context, *App, *O) error) func(context.Context, *App, []string) error {
	return func(ctx context.Context, a *App, args []string) error {
		o, err := parseOpts(a, args)
		if j, ok := any(o).(interface{ jsonOutput() *jsonFlag }); ok && o != nil {
			a.jsonOut = j.jsonOutput()
			if err == nil {
				err = j.jsonOutput().check()
			}
		}
		if err == nil {
			err = run(ctx, a, o)
		}
		if err == nil || o == nil {
			return err
		}
		if m, ok := any(o).(jsonModer); ok && m.jsonMode() {
			return &jsonFailure{err}
		}
		return err
	}
}

// jsonFailure marks a failure of a command whose options asked for JSON.
type jsonFailure struct{ err error }

func (e *jsonFailure) Error() string { return e.err.Error() }
func (e *jsonFailure) Unwrap() error { return e.err }

// landedError is a failure after a record landed in the ledger (the
// responder failed after the request was written): the error document
// names the record, as text mode prints its id.
type landedError struct {
	err error
	rec ledger.Record
}

func (e *landedError) Error() string { return e.err.Error() }
func (e *landedError) Unwrap() error { return e.err }

// unknownOptions are the options of a command line no command took (an
// unknown command or subcommand): only how to print the error.
type unknownOptions struct {
	jsonFlag
	format string
}

func (o *unknownOptions) jsonMode() bool { return o.JSON || o.format == "json" }

// unknown returns err (a usage error about args' command) marked for a
// JSON document when args ask for one; every flag but --json and --format
// is ignored, as the command that would define them is unknown.
func (a *App) unknown(err error, args []string) error {
	o := &unknownOptions{}
	flags := flag.NewFlagSet("", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	o.register(flags)
	flags.StringVar(&o.format, "format", "", "")
	_, _ = parse(flags, args) // only what it recognised counts
	if o.jsonMode() {
		return &jsonFailure{err}
	}
	return err
}

// needsSubcommand is a command that takes a subcommand, run without one:
// its --help, or a usage error.
// runFunc runs a command or subcommand on its arguments.
type runFunc = func(context.Context, *App, []string) error

// dispatch runs the subcommand of group that args[0] names (lookup finds
// it; names lists them all for an error). With no subcommand (no
// argument, or a flag first) it runs none, or says one is needed when
// none is nil.
func (a *App) dispatch(ctx context.Context, group, usage, names string, lookup func(string) (runFunc, bool), none runFunc, args []string) error {
	if len(args) == 0 || args[0] == "" || strings.HasPrefix(args[0], "-") {
		if none != nil {
			return none(ctx, a, args)
		}
		return a.needsSubcommand(group, usage, names, args)
	}
	run, ok := lookup(args[0])
	if !ok {
		return a.unknown(usagef("unknown %s subcommand %q (%s)", group, args[0], names), args[1:])
	}
	return run(ctx, a, args[1:])
}

// inMap looks a subcommand up in a table.
func inMap(m map[string]runFunc) func(string) (runFunc, bool) {
	return func(name string) (runFunc, bool) { r, ok := m[name]; return r, ok }
}

func (a *App) needsSubcommand(name, usage, subs string, args []string) error {
	flags := newFlags(a, name, usage)
	if _, err := parse(flags, args); err != nil {
		if errors.Is(err, errHelp) {
			return err
		}
		return a.unknown(err, args)
	}
	return a.unknown(usagef("%s needs a subcommand (%s)", name, subs), args)
}

// document is a --json document: a typed result struct that embeds
// schemaVersion (jsonfile.Versioned, where its key falls in the field
// order), so writeDoc can stamp it.
type document interface{ SetSchemaVersion(int) }

// schemaVersion is embedded in every document hookcmd defines.
type schemaVersion = jsonfile.Versioned

// writeDoc is the one way a --json document is written: stamped with
// schema_version, indented, on stdout.
func (a *App) writeDoc(d document) error {
	d.SetSchemaVersion(SchemaVersion)
	data, err := jsonfile.Marshal(d) // indented, no HTML escaping, as every file of agentx
	if err != nil {
		return err
	}
	if _, failed := d.(*failureDoc); !failed && a.jsonOut != nil {
		return a.jsonOut.write(data, iostreams.Raw(a.Stdout)) // jsonout.go
	}
	_, err = iostreams.Raw(a.Stdout).Write(data)
	return err
}

// emit prints a command's outcome: doc with --json, else text followed
// by the warnings that go with it.
func (a *App) emit(asJSON bool, doc document, text string, warnings ...string) error {
	if asJSON {
		return a.writeDoc(doc)
	}
	fmt.Fprint(a.Stdout, text)
	a.warnEach(warnings...)
	return nil
}

// errorBody is the "error" of a failure document.
type errorBody = errcode.Body

// failureDoc is the document of a failed command run with --json.
type failureDoc struct {
	Error errorBody `json:"error"`
	ID    string    `json:"id,omitempty"`
	Round int       `json:"round,omitempty"`
	schemaVersion
	Status ledger.Status `json:"status,omitempty"`
}
