package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
)

// ruleExamples are one rule's true positives (text gitleaks finds a
// secret in) and false positives (text it must not).
type ruleExamples struct {
	TPs []string `json:"tps,omitempty"`
	FPs []string `json:"fps,omitempty"`
}

// readExamples reads the tps and fps of every rule function in the
// gitleaks rule sources. What cannot be evaluated here (fmt.Sprintf,
// helpers of other files) is left out, element by element.
func readExamples(dir string) (map[string]ruleExamples, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string]ruleExamples{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			id := ruleID(fn)
			if id == "" {
				continue
			}
			ev := &evaluator{env: map[string][]string{}, rng: seeded(id)}
			for _, st := range fn.Body.List {
				ev.stmt(st)
			}
			e := out[id]
			e.TPs = append(e.TPs, ev.env["tps"]...)
			e.FPs = append(e.FPs, ev.env["fps"]...)
			if len(e.TPs)+len(e.FPs) > 0 {
				out[id] = e
			}
		}
	}
	return out, nil
}

func seeded(id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(h.Sum64(), 26)) //nolint:gosec // test data, not secrets
}

// ruleID is the RuleID of the config.Rule literal in fn.
func ruleID(fn *ast.FuncDecl) string {
	id := ""
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || id != "" {
			return id == ""
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "RuleID" {
			if lit, ok := kv.Value.(*ast.BasicLit); ok {
				id, _ = strconv.Unquote(lit.Value)
			}
		}
		return true
	})
	return id
}

type evaluator struct {
	env map[string][]string
	rng *rand.Rand
}

func (ev *evaluator) stmt(st ast.Stmt) {
	as, ok := st.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			continue
		}
		if vals, ok := ev.list(as.Rhs[i]); ok {
			ev.env[id.Name] = vals
		} else if s, ok := ev.str(as.Rhs[i]); ok {
			ev.env[id.Name] = []string{s}
		}
	}
}

// list evaluates an expression of type []string.
func (ev *evaluator) list(e ast.Expr) ([]string, bool) {
	switch e := e.(type) {
	case *ast.CompositeLit:
		if _, ok := e.Type.(*ast.ArrayType); !ok {
			return nil, false
		}
		var out []string
		for _, el := range e.Elts {
			if s, ok := ev.str(el); ok {
				out = append(out, s)
			}
		}
		return out, true
	case *ast.CallExpr:
		switch name := callName(e); name {
		case "append":
			return ev.appendCall(e)
		case "utils.GenerateSampleSecrets":
			if s, ok := ev.str(e); ok {
				return []string{s}, true
			}
			return nil, true
		}
	case *ast.Ident:
		l, ok := ev.env[e.Name]
		return l, ok
	}
	return nil, false
}

// appendCall evaluates append(list, elems...) or append(list, elem, ...).
func (ev *evaluator) appendCall(e *ast.CallExpr) ([]string, bool) {
	if len(e.Args) == 0 {
		return nil, false
	}
	base, ok := ev.list(e.Args[0])
	if !ok {
		return nil, false
	}
	out := append([]string(nil), base...)
	for _, a := range e.Args[1:] {
		if e.Ellipsis.IsValid() {
			if l, ok := ev.list(a); ok {
				out = append(out, l...)
			}
		} else if s, ok := ev.str(a); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// str evaluates an expression of type string.
func (ev *evaluator) str(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return ev.str(e.X)
	case *ast.Ident:
		if l := ev.env[e.Name]; len(l) == 1 {
			return l[0], true
		}
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := ev.str(e.X)
		y, ok2 := ev.str(e.Y)
		return x + y, ok1 && ok2
	case *ast.CallExpr:
		return ev.call(e)
	}
	return "", false
}

var patterns = map[string]string{
	"utils.Numeric":                   `[0-9]{%s}`,
	"utils.Hex":                       `[a-f0-9]{%s}`,
	"utils.AlphaNumeric":              `[a-z0-9]{%s}`,
	"utils.AlphaNumericExtendedShort": `[a-z0-9_-]{%s}`,
	"utils.AlphaNumericExtended":      `[a-z0-9=_\-]{%s}`,
	"utils.AlphaNumericExtendedLong":  `[a-z0-9\/=_\+\-]{%s}`,
}

func (ev *evaluator) call(e *ast.CallExpr) (string, bool) {
	name := callName(e)
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		s, ok := ev.str(a)
		if !ok {
			return "", false
		}
		args[i] = s
	}
	switch {
	case patterns[name] != "" && len(args) == 1:
		return fmt.Sprintf(patterns[name], args[0]), true
	case name == "utils.Hex8_4_4_4_12":
		return `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, true
	case name == "secrets.NewSecret" && len(args) == 1:
		return sample(args[0], ev.rng)
	case (name == "utils.GenerateSampleSecrets" || name == "utils.GenerateSampleSecret") && len(args) == 2:
		// One of gitleaks' sample shapes ("python - double quote").
		return args[0] + `Token = "` + args[1] + `"`, true
	}
	return "", false
}

func callName(e *ast.CallExpr) string {
	switch f := e.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
	}
	return ""
}

// sample is a string the regular expression matches, drawn with rng (as
// gitleaks' secrets.NewSecret draws one).
func sample(expr string, rng *rand.Rand) (string, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !gen(&b, re.Simplify(), rng) {
		return "", false
	}
	return b.String(), true
}

func gen(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
		return true
	case syntax.OpCharClass:
		return genClass(b, re.Rune, rng)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte('x')
		return true
	case syntax.OpCapture:
		return gen(b, re.Sub[0], rng)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !gen(b, s, rng) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return gen(b, re.Sub[rng.IntN(len(re.Sub))], rng)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatBounds(re)
		n := lo + rng.IntN(hi-lo+1)
		for range n {
			if !gen(b, re.Sub[0], rng) {
				return false
			}
		}
		return true
	}
	return false
}

func repeatBounds(re *syntax.Regexp) (int, int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, 8
	case syntax.OpPlus:
		return 1, 8
	case syntax.OpQuest:
		return 0, 1
	}
	if re.Max < 0 {
		return re.Min, re.Min + 8
	}
	return re.Min, re.Max
}

// genClass writes one rune of the class (pairs of ranges), a printable
// ASCII one where the class has any.
func genClass(b *strings.Builder, ranges []rune, rng *rand.Rand) bool {
	var pick []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < 0x7f; r++ {
			if unicode.IsPrint(r) && r != ' ' {
				pick = append(pick, r)
			}
		}
	}
	if len(pick) == 0 {
		return false
	}
	b.WriteRune(pick[rng.IntN(len(pick))])
	return true
}
