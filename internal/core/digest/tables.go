package digest

import (
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

func pairs(facts []fact, w Window) []Pair {
	idx := map[[2]string]*Pair{}
	var order []*Pair
	for i := range facts {
		x := &facts[i]
		opened, settled := w.contains(x.created), x.outcome != open && w.contains(x.settled)
		if !opened && !settled {
			continue
		}
		k := [2]string{x.rec.From, x.rec.To}
		p := idx[k]
		if p == nil {
			p = &Pair{From: k[0], To: k[1]}
			idx[k] = p
			order = append(order, p)
		}
		if opened {
			p.Opened++
		}
		if settled {
			p.Settled++
			p.rounds += x.rounds
			switch x.outcome {
			case autoResolved:
				p.AutoResolved++
			case escalated:
				p.Escalated++
			}
		}
	}
	out := make([]Pair, 0, len(order))
	for _, p := range order {
		if p.Settled > 0 {
			p.AverageRounds = ratio(p.rounds, p.Settled)
		}
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Opened+out[i].Settled, out[j].Opened+out[j].Settled
		if a != b {
			return a > b
		}
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

func issueRows(facts []fact, w Window, link func(int) string) []IssueRow {
	idx := map[int]*IssueRow{}
	for i := range facts {
		x := &facts[i]
		opened, settled := w.contains(x.created), x.outcome != open && w.contains(x.settled)
		stillOpen := !x.created.IsZero() && x.created.Before(w.Until) && (x.outcome == open || !x.settled.Before(w.Until))
		if !opened && !settled && !stillOpen {
			continue
		}
		n := x.rec.IssueNumber
		r := idx[n]
		if r == nil {
			r = &IssueRow{Issue: n, URL: link(n)}
			idx[n] = r
		}
		if opened {
			r.Opened++
		}
		if settled {
			r.Settled++
			if x.outcome == escalated {
				r.Escalated++
			}
		}
		if stillOpen {
			r.StillOpen++
		}
	}
	out := make([]IssueRow, 0, len(idx))
	for _, r := range idx {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Opened+out[i].Settled+out[i].StillOpen, out[j].Opened+out[j].Settled+out[j].StillOpen
		if a != b {
			return a > b
		}
		return out[i].Issue < out[j].Issue
	})
	return out
}

// normTopic folds case and spacing so "Auth flow" and "auth  flow" recur.
func normTopic(s string) string { return strings.ToLower(shorten.Flatten(s)) }

func topics(facts []fact, w Window) []Topic {
	type acc struct {
		t      Topic
		issues map[int]bool
	}
	idx := map[string]*acc{}
	for i := range facts {
		x := &facts[i]
		if !w.contains(x.created) {
			continue
		}
		k := normTopic(x.rec.Topic)
		if k == "" {
			continue
		}
		a := idx[k]
		if a == nil {
			a = &acc{t: Topic{Topic: k}, issues: map[int]bool{}}
			idx[k] = a
		}
		a.t.Count++
		a.issues[x.rec.IssueNumber] = true
	}
	var out []Topic
	for _, a := range idx {
		if a.t.Count < 2 {
			continue
		}
		for n := range a.issues {
			a.t.Issues = append(a.t.Issues, n)
		}
		sort.Ints(a.t.Issues)
		out = append(out, a.t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Topic < out[j].Topic
	})
	if len(out) == 0 {
		out = []Topic{}
	}
	return out
}

// trend is up to TrendWindows windows of the current length ending with the
// current one, starting at the first that has any clarification; empty
// when only the current and previous windows have history.
func trend(facts []fact, cur Window, in *Input) []TrendPoint {
	length := cur.Until.Sub(cur.Since)
	var earliest time.Time
	for i := range facts {
		if c := facts[i].created; !c.IsZero() && (earliest.IsZero() || c.Before(earliest)) {
			earliest = c
		}
	}
	if earliest.IsZero() || !earliest.Before(cur.Since.Add(-length)) {
		return []TrendPoint{}
	}
	out := []TrendPoint{}
	for k := TrendWindows - 1; k >= 0; k-- {
		w := Window{cur.Since.Add(-time.Duration(k) * length), cur.Until.Add(-time.Duration(k) * length)}
		if !earliest.Before(w.Until) {
			continue
		}
		f := figures(facts, w, nil, &Input{})
		out = append(out, TrendPoint{Week: WeekOf(w), Opened: f.Opened, Settled: f.Settled,
			AutoResolutionRate: f.AutoResolutionRate, EscalationRate: f.EscalationRate})
	}
	return out
}

func waiting(facts []fact, now time.Time, link func(int) string) (esc, longest []Waiting) {
	esc, longest = []Waiting{}, []Waiting{}
	for i := range facts {
		x := &facts[i]
		r := x.rec
		w := Waiting{ID: r.ID, Issue: r.IssueNumber, URL: link(r.IssueNumber), From: r.From, To: r.To, Topic: r.Topic,
			Status: string(r.Status), Blocking: r.Blocking}
		switch {
		case r.Status == ledger.Escalated:
			w.Since, w.WaitSeconds = clock.Format(x.settled), int64(now.Sub(x.settled).Seconds())
			esc = append(esc, w)
		case r.Status.Open():
			w.Since, w.WaitSeconds = clock.Format(x.waitFrom), int64(now.Sub(x.waitFrom).Seconds())
			longest = append(longest, w)
		}
	}
	byWait := func(ws []Waiting) {
		sort.Slice(ws, func(i, j int) bool {
			if ws[i].Blocking != ws[j].Blocking {
				return ws[i].Blocking
			}
			if ws[i].WaitSeconds != ws[j].WaitSeconds {
				return ws[i].WaitSeconds > ws[j].WaitSeconds
			}
			return ws[i].ID < ws[j].ID
		})
	}
	byWait(esc)
	byWait(longest)
	if len(esc) > MaxWaiting {
		esc = esc[:MaxWaiting]
	}
	if len(longest) > MaxWaiting {
		longest = longest[:MaxWaiting]
	}
	return esc, longest
}
