// Package jsonfilter applies a --jq expression (github.com/itchyny/gojq)
// or a --template (text/template) to one --json document, as gh does. It
// is linked by agentx-mcp only: gojq builds its builtins' syntax trees in
// package initialisers, which every hook's agentx-hook would pay at start
// for a flag it never gets; agentx-hook hands a command line with --jq or
// --template to agentx-mcp instead (hookcmd.JSONFilter).
package jsonfilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"
)

// ErrExpression is a --jq expression or --template that does not parse.
var ErrExpression = errors.New("bad expression")

// Apply writes doc, one JSON document, through the jq expression jq or
// the Go template tmpl (exactly one is set). A jq result that is a string
// is written as it is, any other as compact JSON, one per line (gh's
// --jq); a template gets the decoded document as dot, with the functions
// json (compact JSON of a value) and join (join LIST SEP).
func Apply(doc []byte, jq, tmpl string, w io.Writer) error {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("read the --json document: %w", err)
	}
	if tmpl != "" {
		return applyTemplate(v, tmpl, w)
	}
	q, err := gojq.Parse(jq)
	if err != nil {
		return fmt.Errorf("%w: --jq %q: %w", ErrExpression, jq, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return fmt.Errorf("%w: --jq %q: %w", ErrExpression, jq, err)
	}
	iter := code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq %q: %w", jq, err)
		}
		if s, ok := r.(string); ok {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
			continue
		}
		out, err := gojq.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", out); err != nil {
			return err
		}
	}
}

func applyTemplate(v any, tmpl string, w io.Writer) error {
	t, err := template.New("template").Funcs(templateFuncs).Parse(tmpl)
	if err != nil {
		return fmt.Errorf("%w: --template: %w", ErrExpression, err)
	}
	return t.Execute(w, v)
}

// Check parses the jq expression or the template without running it, so
// a command refuses a bad one before it acts.
func Check(jq, tmpl string) error {
	if tmpl != "" {
		if _, err := template.New("template").Funcs(templateFuncs).Parse(tmpl); err != nil {
			return fmt.Errorf("%w: --template: %w", ErrExpression, err)
		}
		return nil
	}
	q, err := gojq.Parse(jq)
	if err == nil {
		_, err = gojq.Compile(q)
	}
	if err != nil {
		return fmt.Errorf("%w: --jq %q: %w", ErrExpression, jq, err)
	}
	return nil
}

// templateFuncs are the functions a --template has besides text/template's.
var templateFuncs = template.FuncMap{
	"json": func(x any) (string, error) {
		b, err := json.Marshal(x)
		return string(b), err
	},
	"join": func(list []any, sep string) string {
		parts := make([]string, len(list))
		for i, x := range list {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, sep)
	},
}
