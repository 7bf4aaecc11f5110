package monitor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Reasons the monitor escalates for (the record keeps it, see
// protocol.MonitorReason).
const (
	ReasonStale    = protocol.ReasonStale
	ReasonStuck    = protocol.ReasonStuck
	ReasonDeadlock = protocol.ReasonDeadlock
)

// StaleFinding is a waiting record past its staleAfter.
type StaleFinding struct {
	Record ledger.Record
	// Timeout is 1 for the first timeout of the round (mark stale, retry)
	// and 2 for the second (escalate).
	Timeout int
}

// StuckFinding is a record that goes round in circles.
type StuckFinding struct {
	Record ledger.Record
	// Rounds are the rounds whose questions repeat (earlier first).
	Rounds []int
	// Flipped is the id of the record asking the same topic the other way
	// round, when that is why it is stuck.
	Flipped string
	// Detail quotes the repeating questions for the escalation summary.
	Detail string
}

// Deadlock is one cycle of agents waiting on each other through blocking
// records, and how it is broken.
type Deadlock struct {
	// Agents in wait order: Agents[0] waits on Agents[1], ..., the last on
	// Agents[0]. Agents[0] is the agent whose request continues.
	Agents []string
	// Continue are the winner's requests in the cycle; Escalate the others.
	Continue []ledger.Record
	Escalate []ledger.Record
}

// Reason is the text every escalated request of the cycle carries.
func (d *Deadlock) Reason() string {
	ids := make([]string, len(d.Continue))
	for i, r := range d.Continue {
		ids[i] = r.ID
	}
	return fmt.Sprintf("deadlock: %s -> %s wait on each other through blocking clarifications; %s's request %s continues (agent priority)",
		strings.Join(d.Agents, " -> "), d.Agents[0], d.Agents[0], strings.Join(ids, ", "))
}

// Plan is what one check found. Detect builds it without touching a file.
type Plan struct {
	Stale     []StaleFinding
	Stuck     []StuckFinding
	Deadlocks []Deadlock
}

// Empty reports whether nothing was found.
func (p *Plan) Empty() bool { return len(p.Stale) == 0 && len(p.Stuck) == 0 && len(p.Deadlocks) == 0 }

// Detect decides, from the open records of every issue and the time, what
// the monitor must do. A record appears in at most one finding: stuck
// detection comes first (a circular conversation needs a person whatever
// else holds), then deadlocks among the rest, then stale timeouts among
// records neither escalates. priority is the deadlock-break order (lower
// index wins; agents not listed rank last).
func Detect(recs []ledger.Record, now time.Time, priority []string) Plan {
	// The scan's records are open and in order already: they are read
	// as they are, not copied.
	open := recs
	if !allOpen(recs) || !inOrder(recs) {
		open = make([]ledger.Record, 0, len(recs))
		for _, r := range recs {
			if r.Status.Open() {
				open = append(open, r)
			}
		}
		sortRecords(open, false)
	}

	var p Plan
	taken := map[string]bool{}
	p.Stuck = detectStuck(open)
	for _, f := range p.Stuck {
		taken[f.Record.ID] = true
	}
	p.Deadlocks = detectDeadlocks(open, taken, priority)
	for _, d := range p.Deadlocks {
		for _, r := range d.Escalate {
			taken[r.ID] = true
		}
	}
	for _, r := range open {
		if taken[r.ID] {
			continue
		}
		if t := protocol.Timeout(&r, now); t > 0 {
			p.Stale = append(p.Stale, StaleFinding{Record: r, Timeout: t})
		}
	}
	return p
}

// unreadableSLAs names the waiting records whose staleAfter is no time
// (a hand edit; verify's TIMESTAMP_INVALID): protocol.Timeout never fires
// for them, so their SLA would go unenforced without a word.
func unreadableSLAs(open []ledger.Record) []error {
	var out []error
	for i := range open {
		r := &open[i]
		if r.Status.Waiting() && r.StaleAfterTime().IsZero() {
			out = append(out, fmt.Errorf("%s: staleAfter %q is not a time, so the record never goes stale (`agentx-hook verify`: TIMESTAMP_INVALID)", r.ID, r.StaleAfter))
		}
	}
	return out
}

// sortRecords sorts recs by less (stably when stable). Records usually
// come in order already (a ledger's in creation order, ledgers by issue):
// that is checked first, each creation time parsed once, where the sort
// parsed two for every comparison. Records that less finds equal (the same
// issue, time and id) keep their order then, as a stable sort keeps them.
func sortRecords(recs []ledger.Record, stable bool) {
	if inOrder(recs) {
		return
	}
	if stable {
		sort.SliceStable(recs, func(i, j int) bool { return less(&recs[i], &recs[j]) })
	} else {
		sort.Slice(recs, func(i, j int) bool { return less(&recs[i], &recs[j]) })
	}
}

// inOrder reports whether no record is less than the one before it, each
// creation time parsed once.
func inOrder(recs []ledger.Record) bool {
	if len(recs) < 2 {
		return true
	}
	prev := recs[0].CreatedTime()
	for i := 1; i < len(recs); i++ {
		a, b := &recs[i], &recs[i-1]
		t := a.CreatedTime()
		switch {
		case a.IssueNumber != b.IssueNumber:
			if a.IssueNumber < b.IssueNumber {
				return false
			}
		case !t.Equal(prev):
			if t.Before(prev) {
				return false
			}
		case a.ID < b.ID:
			return false
		}
		prev = t
	}
	return true
}

// allOpen reports whether every record is open.
func allOpen(recs []ledger.Record) bool {
	for i := range recs {
		if !recs[i].Status.Open() {
			return false
		}
	}
	return true
}

// less orders records by issue, then creation, then id.
func less(a, b *ledger.Record) bool {
	if a.IssueNumber != b.IssueNumber {
		return a.IssueNumber < b.IssueNumber
	}
	return older(a, b)
}

// older reports whether a was created before b (ids break ties).
func older(a, b *ledger.Record) bool {
	ta, tb := a.CreatedTime(), b.CreatedTime()
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.ID < b.ID
}

// detectStuck finds records whose questions repeat across rounds, and pairs
// of records on one issue between the same agents in opposite directions on
// the same topic (the later one is the flip and is escalated).
func detectStuck(open []ledger.Record) []StuckFinding {
	var out []StuckFinding
	seen := map[string]bool{}
	for _, r := range open {
		if f, ok := RepeatedQuestion(&r); ok {
			out = append(out, f)
			seen[r.ID] = true
		}
	}
	// open is sorted by issue: compare only records of the same issue.
	for lo := 0; lo < len(open); {
		hi := lo
		for hi < len(open) && open[hi].IssueNumber == open[lo].IssueNumber {
			hi++
		}
		out = flips(open[lo:hi], seen, out)
		lo = hi
	}
	return out
}

// flips finds, among the open records of one issue, the later record of
// each pair between the same two agents in opposite directions on the same
// topic.
// Only records in the opposite direction are compared (byPair): every
// pair was compared before, 14,000 of them for an issue of 120 open
// requests in one direction, none of which can flip.
func flips(same []ledger.Record, seen map[string]bool, out []StuckFinding) []StuckFinding {
	type pair struct{ from, to string }
	byPair := make(map[pair][]int)
	for j := range same {
		k := pair{same[j].From, same[j].To}
		byPair[k] = append(byPair[k], j)
	}
	for i := range same {
		for _, j := range byPair[pair{same[i].To, same[i].From}] {
			a, b := &same[i], &same[j]
			if !older(a, b) || seen[b.ID] {
				continue
			}
			if !sameTopic(a.Topic, b.Topic) {
				continue
			}
			seen[b.ID] = true
			out = append(out, StuckFinding{Record: *b, Flipped: a.ID,
				Detail: fmt.Sprintf("Direction flipped on topic %q:\n  %s (%s -> %s): %s\n  %s (%s -> %s): %s",
					b.Topic, a.ID, a.From, a.To, firstQuestion(a), b.ID, b.From, b.To, firstQuestion(b))})
		}
	}
	return out
}

// RepeatedQuestion reports whether a later question of r repeats an
// earlier one (normalised word sets at least Similarity alike).
func RepeatedQuestion(r *ledger.Record) (StuckFinding, bool) {
	prev, cur, ok := protocol.Repeats(r)
	if !ok {
		return StuckFinding{}, false
	}
	return StuckFinding{Record: *r, Rounds: []int{prev.Round, cur.Round},
		Detail: fmt.Sprintf("The same question was asked again:\n  [Round %d] %s\n  [Round %d] %s",
			prev.Round, quote(prev.Body), cur.Round, quote(cur.Body))}, true
}

func sameTopic(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) || Similar(a, b)
}

func firstQuestion(r *ledger.Record) string {
	for _, e := range r.Thread {
		if e.Type == ledger.Question {
			return quote(e.Body)
		}
	}
	return "(no question)"
}

// quote puts a message body inside a one-line finding.
func quote(s string) string { return strconv.Quote(shorten.Line(s, 200)) }

// detectDeadlocks builds the wait-for graph of blocking records whose
// target owes an answer (requester -> target, across all issues), lists
// every elementary cycle and breaks each one once: the request of the
// highest-priority agent in the cycle continues (ties: the agent with the
// older request), every other request in the cycle is escalated. A cycle
// already broken by an earlier break in the same check (one of its edges
// has no waiting record left) is skipped. Records in taken are out of the
// graph already.
func detectDeadlocks(open []ledger.Record, taken map[string]bool, priority []string) []Deadlock {
	g := newWaitGraph(open, taken)
	if g == nil {
		return nil
	}
	rank := func(agent string) int {
		for i, p := range priority {
			if p == agent {
				return i
			}
		}
		return len(priority)
	}
	escalated := map[string]bool{}
	var out []Deadlock
	for _, cyc := range elementaryCycles(len(g.names), g.adj) {
		if g.broken(cyc, escalated) {
			continue
		}
		out = append(out, g.breakAt(cyc, g.winner(cyc, rank), escalated))
	}
	return out
}

type edge struct{ from, to int }

// waitGraph is the wait-for graph between agents: an edge from a requester
// to the target that owes it an answer.
type waitGraph struct {
	names []string // the agents, sorted; a vertex is an index into names
	adj   [][]int
	edges map[edge][]ledger.Record // the waiting records of an edge, oldest first
}

// newWaitGraph builds the graph of open's blocking waiting records not in
// taken, or returns nil when fewer than two agents wait.
func newWaitGraph(open []ledger.Record, taken map[string]bool) *waitGraph {
	waits := func(r *ledger.Record) bool {
		return r.Blocking && r.Status.Waiting() && !taken[r.ID] && r.From != r.To
	}
	index := map[string]int{}
	g := &waitGraph{edges: map[edge][]ledger.Record{}}
	for i := range open {
		if !waits(&open[i]) {
			continue
		}
		for _, a := range []string{open[i].From, open[i].To} {
			if _, ok := index[a]; !ok {
				index[a] = -1
				g.names = append(g.names, a)
			}
		}
	}
	if len(g.names) < 2 {
		return nil
	}
	sort.Strings(g.names)
	for i, a := range g.names {
		index[a] = i
	}
	g.adj = make([][]int, len(g.names))
	for _, r := range open {
		if !waits(&r) {
			continue
		}
		e := edge{index[r.From], index[r.To]}
		if len(g.edges[e]) == 0 {
			g.adj[e.from] = append(g.adj[e.from], e.to)
		}
		g.edges[e] = append(g.edges[e], r) // open is sorted: oldest first per edge
	}
	return g
}

// out is the records on the edge leaving cycle position i.
func (g *waitGraph) out(cyc []int, i int) []ledger.Record {
	k := len(cyc)
	return g.edges[edge{cyc[i%k], cyc[(i+1)%k]}]
}

// broken reports whether an earlier break escalated every record of one of
// cyc's edges, so the cycle waits no more.
func (g *waitGraph) broken(cyc []int, escalated map[string]bool) bool {
	for i := range cyc {
		all := true
		for _, r := range g.out(cyc, i) {
			all = all && escalated[r.ID]
		}
		if all {
			return true
		}
	}
	return false
}

// winner is the cycle position whose request continues: best rank, then
// oldest request on its outgoing edge.
func (g *waitGraph) winner(cyc []int, rank func(string) int) int {
	win := 0
	for i := 1; i < len(cyc); i++ {
		ra, rb := rank(g.names[cyc[i]]), rank(g.names[cyc[win]])
		if ra < rb || (ra == rb && older(&g.out(cyc, i)[0], &g.out(cyc, win)[0])) {
			win = i
		}
	}
	return win
}

// breakAt breaks cyc at position win: win's requests continue, every other
// record not yet escalated is escalated (and marked so in escalated).
func (g *waitGraph) breakAt(cyc []int, win int, escalated map[string]bool) Deadlock {
	d := Deadlock{}
	for i := range cyc {
		d.Agents = append(d.Agents, g.names[cyc[(win+i)%len(cyc)]])
		for _, r := range g.out(cyc, win+i) {
			switch {
			case i == 0 && !escalated[r.ID]:
				d.Continue = append(d.Continue, r)
			case i > 0 && !escalated[r.ID]:
				escalated[r.ID] = true
				d.Escalate = append(d.Escalate, r)
			}
		}
	}
	return d
}
