package sanitize

//go:generate go run ./gen -out .

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// glRule is one rule of gitleaks' default rule set (gitleaks_rules.go,
// generated from config/gitleaks.toml at GitleaksVersion): its regexp, the
// keywords one of which every match holds (lower case), the entropy its
// secret must exceed, the capture group that is the secret (0: the first
// non-empty group, else the whole match) and its allowlists.
type glRule struct {
	ID          string
	Regex       string
	Keywords    []string
	Entropy     float64
	SecretGroup int
	Allow       []glAllow
}

// glAllow is one gitleaks allowlist: a finding is allowed when one of the
// regexes matches its target (the secret, the whole match or its line)
// or its secret holds a stop word; And asks for both where both are given.
type glAllow struct {
	Target    string
	And       bool
	Regexes   []string
	StopWords []string
}

// glCompiled is a rule's compiled form, made on the first text that holds
// one of its keywords: a process that never meets a keyword compiles
// nothing.
type glCompiled struct {
	once sync.Once
	re   *regexp.Regexp
	// multiline rules can match across lines (a private key block) and run
	// over the whole text; the others line by line.
	multiline bool
	allow     []allowCompiled
}

type allowCompiled struct {
	target    string
	and       bool
	re        *regexp.Regexp // the regexes as one alternation; nil if none
	stopWords []string
}

var (
	glCompiledRules = lazy.Value[[]glCompiled]{New: func() []glCompiled { return make([]glCompiled, len(gitleaksRules)) }}
	glGlobal        = lazy.Value[[]allowCompiled]{New: func() []allowCompiled { return compileAllow(gitleaksGlobal) }}
)

func (c *glCompiled) compile(r *glRule) {
	c.once.Do(func() {
		c.re = regexp.MustCompile(r.Regex)
		c.multiline = strings.Contains(r.Regex, `[\s\S`) || strings.Contains(r.Regex, `(?s`) || strings.Contains(r.Regex, `[\r\n]`)
		c.allow = compileAllow(r.Allow)
	})
}

func compileAllow(as []glAllow) []allowCompiled {
	out := make([]allowCompiled, 0, len(as))
	for _, a := range as {
		c := allowCompiled{target: a.Target, and: a.And, stopWords: a.StopWords}
		if len(a.Regexes) > 0 {
			c.re = regexp.MustCompile("(?:" + strings.Join(a.Regexes, ")|(?:") + ")")
		}
		out = append(out, c)
	}
	return out
}

// glCandidates returns, in table order, the rules one of whose keywords
// lower holds. A set of the text's byte pairs, made in one pass, rules
// out most keywords before any substring search: a keyword whose first or
// last two bytes the text lacks cannot be in it.
func glCandidates(lower string) []int {
	var pairs bigrams
	pairs.add(lower)
	var hit []bool
	n := 0
	for _, kw := range glKeywordList() {
		if !pairs.has(kw.word) || !strings.Contains(lower, kw.word) {
			continue
		}
		if hit == nil {
			hit = make([]bool, len(gitleaksRules))
		}
		for _, i := range kw.rules {
			if !hit[i] {
				hit[i] = true
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]int, 0, n)
	for i, h := range hit {
		if h {
			out = append(out, i)
		}
	}
	return out
}

type keyword struct {
	word  string
	rules []int
}

// glKeywordList is every keyword with the rules that name it: the
// generated gitleaksKeywords, a static table (nothing built at run time).
func glKeywordList() []keyword { return gitleaksKeywords }

// bigrams is the set of the byte pairs of a text.
type bigrams [1 << 16 / 64]uint64

func (b *bigrams) add(s string) {
	for i := 0; i+1 < len(s); i++ {
		p := uint16(s[i])<<8 | uint16(s[i+1])
		b[p/64] |= 1 << (p % 64)
	}
}

func (b *bigrams) hasPair(x, y byte) bool {
	p := uint16(x)<<8 | uint16(y)
	return b[p/64]&(1<<(p%64)) != 0
}

// has reports whether the text may hold w: its first and last pairs are
// in the set (always true for a word shorter than two bytes).
func (b *bigrams) has(w string) bool {
	if len(w) < 2 {
		return true
	}
	return b.hasPair(w[0], w[1]) && b.hasPair(w[len(w)-2], w[len(w)-1])
}

// gitleaksSecrets applies gitleaks' rules to s: each secret a rule finds
// (above its entropy, not allowed by its or the global allowlists) is
// replaced by the rule's mark. generic picks gitleaks' generic rule alone,
// else every other rule: Secrets runs the generic one last, so a specific
// kind is named where one applies.
func gitleaksSecrets(s string, generic bool) string {
	cands := glCandidates(strings.ToLower(s))
	if len(cands) == 0 {
		return s
	}
	rules := glCompiledRules.Get()
	for _, i := range cands {
		if (gitleaksRules[i].ID == genericRule) == generic {
			s = glApply(s, i, &rules[i])
		}
	}
	return s
}

const genericRule = "generic-api-key"

// glApply runs rule i over s, line by line unless it is multiline, and
// only on the lines that hold one of its keywords.
func glApply(s string, i int, c *glCompiled) string {
	r := &gitleaksRules[i]
	c.compile(r)
	if c.multiline {
		return glReplace(s, s, r, c)
	}
	var b strings.Builder
	changed := false
	rest := s
	for len(rest) > 0 {
		line, next, nl := strings.Cut(rest, "\n")
		rest = next
		out := line
		switch {
		case !hasKeyword(line, r.Keywords):
		case r.ID == genericRule:
			out = genericReplace(line, r, c)
		default:
			out = glReplace(line, line, r, c)
		}
		if out != line && !changed {
			changed = true
			b.Grow(len(s) + 32)
			b.WriteString(s[:len(s)-len(rest)-len(line)-boolInt(nl)])
		}
		if changed {
			b.WriteString(out)
			if nl {
				b.WriteByte('\n')
			}
		}
	}
	if !changed {
		return s
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hasKeyword(line string, kws []string) bool {
	lower := strings.ToLower(line)
	for _, k := range kws {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// glReplace replaces the secret of every finding of r in s (whose line,
// for allowlists that look at lines, is line).
func glReplace(s, line string, r *glRule, c *glCompiled) string {
	return replaceLocs(s, line, c.re.FindAllStringSubmatchIndex(s, -1), r, c)
}

// replaceLocs replaces the secrets of the matches locs (in order) that
// are findings.
func replaceLocs(s, line string, locs [][]int, r *glRule, c *glCompiled) string {
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	var lv *lineVerdicts
	if !c.multiline && len(locs) > 1 {
		lv = &lineVerdicts{}
	}
	for _, loc := range locs {
		from, to := secretSpan(loc, r.SecretGroup)
		if from < last || from == to {
			continue
		}
		if c.multiline {
			line = lineAround(s, from, to)
		}
		if !glFinding(s[from:to], s[loc[0]:loc[1]], line, r, c, lv) {
			continue
		}
		// A rule of a fixed length with no closing condition matches the
		// head of a longer token: the mark takes the rest of it too, not
		// to leave its tail behind.
		for to < len(s) && isKeyChar(s[to]) && isKeyChar(s[to-1]) {
			to++
		}
		b.WriteString(s[last:from])
		b.WriteString(Mark(r.ID))
		last = to
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// glFinding reports whether a match of r is a finding: its secret above
// the rule's entropy, allowed by neither the global allowlists nor the
// rule's.
// lv, when not nil, remembers the verdicts on line across its findings.
func glFinding(secret, match, line string, r *glRule, c *glCompiled, lv *lineVerdicts) bool {
	if r.Entropy != 0 && entropy(secret) <= r.Entropy {
		return false
	}
	return !allowed(glGlobal.Get(), secret, match, line, lv) && !allowed(c.allow, secret, match, line, lv)
}

// lineVerdicts remembers, for the one line all of a replacement's findings
// share, whether each allowlist regexp that looks at the whole line
// matches it. Asked once per finding, a line of hundreds of findings (a
// minified JSON line of key/value pairs) was read hundreds of times.
type lineVerdicts struct {
	seen map[*regexp.Regexp]bool
}

func (lv *lineVerdicts) match(re *regexp.Regexp, line string) bool {
	if lv == nil {
		return re.MatchString(line)
	}
	if v, ok := lv.seen[re]; ok {
		return v
	}
	if lv.seen == nil {
		lv.seen = make(map[*regexp.Regexp]bool, 2)
	}
	v := re.MatchString(line)
	lv.seen[re] = v
	return v
}

// secretSpan is where the secret of a match is: the rule's secret group,
// else its first non-empty group, else the whole match.
func secretSpan(loc []int, group int) (int, int) {
	if group > 0 && 2*group+1 < len(loc) {
		return loc[2*group], loc[2*group+1]
	}
	for g := 1; 2*g+1 < len(loc); g++ {
		if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
			return loc[2*g], loc[2*g+1]
		}
	}
	return loc[0], loc[1]
}

func lineAround(s string, from, to int) string {
	start := strings.LastIndexByte(s[:from], '\n') + 1
	end := strings.IndexByte(s[to:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : to+end]
}

func allowed(as []allowCompiled, secret, match, line string, lv *lineVerdicts) bool {
	for _, a := range as {
		var re bool
		switch {
		case a.re == nil:
		case a.target == "match":
			re = a.re.MatchString(match)
		case a.target == "line":
			re = lv.match(a.re, line)
		default:
			re = a.re.MatchString(secret)
		}
		sw := false
		if len(a.stopWords) > 0 {
			lower := strings.ToLower(secret)
			for _, w := range a.stopWords {
				if strings.Contains(lower, w) {
					sw = true
					break
				}
			}
		}
		if a.and {
			if (a.re == nil || re) && (len(a.stopWords) == 0 || sw) {
				return true
			}
		} else if re || sw {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per character, as gitleaks
// computes it.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	inv := 1.0 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// genericStems are the names gitleaks' generic rule looks for, lower case.
var genericStems = []string{"access", "auth", "api", "credential", "creds", "key", "passwd", "password", "secret", "token"}

// genericSites are the offsets of the names in line after which gitleaks'
// generic rule may match, found without its regexp (which Go runs on its
// slowest engine): after the name come at most 20 name characters and 3
// quotes or blanks, an operator, at most 5 quotes, blanks or '=', then
// at least 10 characters a secret is made of. Most lines that name a key
// have none (`max_tokens = 20000`, `password = [REDACTED:password]`).
func genericSites(line string) []int {
	lower := strings.ToLower(line)
	var sites []int
	for _, stem := range genericStems {
		for i := 0; ; {
			j := strings.Index(lower[i:], stem)
			if j < 0 {
				break
			}
			if valueAfter(lower, i+j+len(stem)) {
				sites = append(sites, i+j)
			}
			i += j + 1
		}
	}
	sort.Ints(sites)
	return sites
}

// Bounds of a generic match around the name it holds: the regexp allows
// 50 characters before the name, and after it 20 + 3 + 3 + 5 characters
// to the value, a value of at most 150 and one closing character.
const (
	genericBefore = 50 + 8 // the longest name, passw(or)?d
	genericAfter  = 8 + 20 + 3 + 3 + 5 + 150 + 2
)

// genericReplace is glReplace for gitleaks' generic rule, run on a window
// around each of genericSites rather than on the whole
// line: Go's NFA on a long line of many `key = value` pairs (minified
// JSON) took 0.4 s for 16 KB; windows of a few hundred bytes take a few
// ms. A match that reaches the end of its window is taken only when the
// window ends where the line does (the rule's `$` would otherwise match a
// cut). TestGenericWindowsMatchTheLine and FuzzGenericWindows hold it to
// the whole-line run.
func genericReplace(line string, r *glRule, c *glCompiled) string {
	var locs [][]int
	end := 0 // where the last match taken ends
	for _, at := range genericSites(line) {
		from, to := max(0, at-genericBefore, end), min(len(line), at+genericAfter)
		for to < len(line) && valueChar(line[to-1]) && valueChar(line[to]) {
			to++ // the rule's second value form has no upper bound
		}
		to = min(len(line), to+2) // and the character that closes it
		if from >= to {
			continue
		}
		for _, loc := range c.re.FindAllStringSubmatchIndex(line[from:to], -1) {
			if loc[1] == to-from && to != len(line) {
				continue
			}
			for i := range loc {
				if loc[i] >= 0 {
					loc[i] += from
				}
			}
			locs = append(locs, loc)
			end = loc[1]
		}
	}
	return replaceLocs(line, line, locs, r, c)
}

func valueChar(c byte) bool { return isKeyChar(c) || c == '.' || c == '=' || c == '+' || c == '/' }

func valueAfter(s string, j int) bool {
	n := len(s)
	k := j
	for k < n && k-j <= 26 && strings.IndexByte("=>:|?,", s[k]) < 0 {
		if !(isKeyChar(s[k]) || strings.IndexByte(" \t.'\"\r\n\f\v", s[k]) >= 0) {
			return false
		}
		k++
	}
	if k >= n || strings.IndexByte("=>:|?,", s[k]) < 0 {
		return false
	}
	for m := 0; k < n && m < 4 && strings.IndexByte("=>:|?,", s[k]) >= 0; m++ {
		k++
	}
	for m := 0; k < n && m < 6 && strings.IndexByte("`'\" \t\r\n\f\v=", s[k]) >= 0; m++ {
		k++
	}
	run := 0
	for k < n && valueChar(s[k]) {
		run++
		k++
	}
	return run >= 10
}
