package digest

import "sort"

// Review rejections (seed 002 §1: "review rejection rate due to
// misunderstanding < 15%"). GitHub can tell which pull requests closed in
// the window say they close an issue, and whether a reviewer requested
// changes on them; the ledgers tell whether those issues had
// clarification rounds. What GitHub cannot tell is why changes were
// requested: the share is an upper bound's stand-in, not the criterion.

// PullReview is one pull request closed in the window that says it closes
// an issue ("Closes #N" in its body).
type PullReview struct {
	Number int
	// Issues are the issues it says it closes.
	Issues []int
	// ChangesRequested: at least one review requested changes.
	ChangesRequested bool
}

// ReviewInput is what the Action read from GitHub for the window.
type ReviewInput struct {
	Pulls []PullReview
	// Closed counts the pull requests closed in the window that were
	// examined (closing an issue or not); Unexamined those left out by the
	// bound on API calls.
	Closed, Unexamined int
	// Truncated: the listing stopped at its bound before the window's
	// start, so older pull requests of the window were not read at all.
	Truncated bool
	// Err says why GitHub could not be read ("" when it could): the
	// figures are then not available.
	Err string
}

// ReviewGroup is the pull requests of one kind of issue.
type ReviewGroup struct {
	Pulls            int      `json:"pulls"`
	ChangesRequested int      `json:"changesRequested"`
	Rate             *float64 `json:"changesRequestedRate"`
}

// ReviewFigures are the window's review figures.
type ReviewFigures struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// Closed are the pull requests closed in the window that were read;
	// ClosingIssues those that say they close an issue.
	Closed        int `json:"pullsClosed"`
	ClosingIssues int `json:"pullsClosingAnIssue"`
	// With: the pull request closes an issue that had clarification
	// rounds (a ledger with records); Without: none of its issues had.
	With       ReviewGroup `json:"withClarification"`
	Without    ReviewGroup `json:"withoutClarification"`
	All        ReviewGroup `json:"all"`
	Unexamined int         `json:"unexamined"`
	Truncated  bool        `json:"truncated"`
	// Pulls with changes requested, by number.
	RequestedIn []int `json:"changesRequestedIn"`
}

// reviewFigures splits in's pull requests by whether their issues had
// clarification rounds (clarified).
func reviewFigures(in *ReviewInput, clarified map[int]bool) *ReviewFigures {
	if in == nil {
		return nil
	}
	if in.Err != "" {
		return &ReviewFigures{Reason: in.Err}
	}
	f := &ReviewFigures{Available: true, Closed: in.Closed, Unexamined: in.Unexamined, Truncated: in.Truncated}
	for _, p := range in.Pulls {
		if len(p.Issues) == 0 {
			continue
		}
		f.ClosingIssues++
		g := &f.Without
		for _, n := range p.Issues {
			if clarified[n] {
				g = &f.With
				break
			}
		}
		for _, x := range []*ReviewGroup{g, &f.All} {
			x.Pulls++
			if p.ChangesRequested {
				x.ChangesRequested++
			}
		}
		if p.ChangesRequested {
			f.RequestedIn = append(f.RequestedIn, p.Number)
		}
	}
	for _, g := range []*ReviewGroup{&f.With, &f.Without, &f.All} {
		if g.Pulls > 0 {
			g.Rate = ratio(g.ChangesRequested, g.Pulls)
		}
	}
	sort.Ints(f.RequestedIn)
	return f
}
