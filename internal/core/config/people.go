package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// People are the persons a clarification may be addressed to (issue 34):
// `[people]` in agentx.toml, one key a person, its value their GitHub
// handle or a table with the handle and their SLA:
//
//	[people]
//	lead = "@octo-lead"
//	qa = { github = "@octo-qa", sla = "8h" }
//
// `clarify request --to lead` (or `--to human:lead`) asks that person;
// `--to human` asks anyone. In GitHub Mode the mirror mentions the handle
// on the question's comment; the SLA is how long a blocking request waits
// and when the monitor calls the question stale ([clarify] person_sla
// when the person names none).
type People map[string]Person

// Person is one entry of [people].
type Person struct {
	// GitHub is the handle without its "@": a login, or org/team.
	GitHub string
	// SLA is this person's answer time (0: [clarify] person_sla).
	SLA Duration
	// unknown are the keys of the person's table the toolkit does not
	// read, warned about like any unknown key.
	unknown []string
}

// Anyone is the target naming no one person: `--to human`.
const Anyone = "human"

// DefaultPersonSLA is how long a question to a person waits when neither
// the person nor [clarify] person_sla says: half a working day, where an
// agent's default is 30 minutes.
const DefaultPersonSLA = 4 * time.Hour

// githubHandle is a login (alphanumerics and single hyphens, at most 39)
// or an org/team slug: what GitHub turns into a mention. Compiled on first
// use: every process loads the configuration, few name people.
var githubHandle = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}(?:/[A-Za-z0-9][A-Za-z0-9_.-]{0,99})?$`)
}}

// UnmarshalTOML takes a handle string or a table {github, sla}.
func (p *Person) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p.GitHub = strings.TrimPrefix(strings.TrimSpace(x), "@")
		return nil
	case map[string]any:
		for k, val := range x {
			switch k {
			case "github":
				s, ok := val.(string)
				if !ok {
					return fmt.Errorf("github must be a handle such as \"@octo-lead\" (got %v)", val)
				}
				p.GitHub = strings.TrimPrefix(strings.TrimSpace(s), "@")
			case "sla":
				s, ok := val.(string)
				if !ok {
					return fmt.Errorf("sla must be a duration such as \"4h\" (got %v)", val)
				}
				if err := p.SLA.UnmarshalText([]byte(s)); err != nil {
					return err
				}
			default:
				p.unknown = append(p.unknown, k)
			}
		}
		sort.Strings(p.unknown)
		return nil
	}
	return fmt.Errorf("a person is their GitHub handle (\"@octo-lead\") or a table { github = \"@octo-lead\", sla = \"4h\" } (got %v)", v)
}

// Mention is the person's handle as a mention ("@octo-lead"), or "" when
// none is configured.
func (p Person) Mention() string {
	if p.GitHub == "" {
		return ""
	}
	return "@" + p.GitHub
}

// checkPeople refuses what [people] must not hold: a name that is not one
// (names are agent names: they become the record's target), the reserved
// name human, a handle GitHub would not mention, an SLA out of range.
func checkPeople(path string, c *Config) error {
	for _, n := range c.People.Names() {
		p := c.People[n]
		key := "[people] " + n
		if err := checkAgent(path, key, n); err != nil {
			return err
		}
		if n == Anyone {
			return invalid(path, key, "is reserved: `--to human` asks anyone; name the person")
		}
		if p.GitHub != "" && !githubHandle.Get().MatchString(p.GitHub) {
			return invalid(path, key, "handle %q is not a GitHub login or org/team (such as \"@octo-lead\")", p.GitHub)
		}
		if err := checkSLA(path, key+" sla", p.SLA); err != nil {
			return err
		}
	}
	return checkSLA(path, "[clarify] person_sla", c.Clarify.PersonSLA)
}

func checkSLA(path, key string, d Duration) error {
	if d.Duration < 0 {
		return invalid(path, key, "is negative (%s)", d.Duration)
	}
	if d.Duration > MaxSLAMinutes*time.Minute {
		return invalid(path, key, "is %s; the most is %d minutes", d.Duration, MaxSLAMinutes)
	}
	if d.Duration > 0 && d.Duration < time.Minute {
		return invalid(path, key, "is %s; the SLA is at least 1 minute", d.Duration)
	}
	return nil
}

// peopleWarnings are the keys of person tables the toolkit does not read.
func peopleWarnings(path string, data []byte, c Config) []Warning {
	var out []Warning
	var lines map[string]int
	for _, n := range c.People.Names() {
		for _, k := range c.People[n].unknown {
			if lines == nil {
				lines = keyLines(data)
			}
			name := "people." + n + "." + k
			line := lines[normKey(name)]
			if line == 0 {
				line = lines["people."+n] // an inline table: the person's line
			}
			out = append(out, Warning{Path: path, Line: line, Kind: WarnUnknownKey,
				Message: fmt.Sprintf("unknown key %q is ignored (a person has github and sla)", name)})
		}
	}
	return out
}

// Person returns the configured person name.
func (s *Set) Person(name string) (Person, bool) {
	p, ok := s.Config.People[name]
	return p, ok
}

// PersonNames is every configured person, sorted.
func (s *Set) PersonNames() []string { return s.Config.People.Names() }

// Names is every person's name, sorted: checks, warnings and messages
// list them in one order.
func (p People) Names() []string {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PersonSLA is how long a question to person name waits ("" or Anyone:
// anyone): the person's sla, else [clarify] person_sla, else
// DefaultPersonSLA.
func (s *Set) PersonSLA(name string) time.Duration {
	if p, ok := s.Config.People[name]; ok && p.SLA.Duration > 0 {
		return p.SLA.Duration
	}
	if d := s.Config.Clarify.PersonSLA.Duration; d > 0 {
		return d
	}
	return DefaultPersonSLA
}

// warnShadowedPeople adds shadowWarnings, at their lines of data (the
// configuration file), to the configuration's warnings.
func (s *Set) warnShadowedPeople(path string, data []byte) {
	sw := s.shadowWarnings(path)
	if len(sw) == 0 {
		return
	}
	lines := keyLines(data)
	for i := range sw {
		sw[i].Line = lines[normKey("people."+sw[i].person)]
	}
	s.Config.WarningsAt = append(s.Config.WarningsAt, sw...)
	s.Config.Warnings = printed(path, s.Config.WarningsAt)
}

// shadowWarnings names each person who is also an agent: `--to NAME`
// asks the agent, and only `--to human:NAME` reaches the person.
func (s *Set) shadowWarnings(path string) []Warning {
	known := s.KnownAgents()
	var out []Warning
	for _, n := range s.PersonNames() {
		if known[n] {
			out = append(out, Warning{Path: path, Kind: WarnPersonIsAgent, person: n,
				Message: fmt.Sprintf("person %q is also an agent: --to %s asks the agent; --to human:%s asks the person", n, n, n)})
		}
	}
	return out
}

// WarnPersonIsAgent: a [people] name that an agent also has.
const WarnPersonIsAgent = "person-is-agent"
