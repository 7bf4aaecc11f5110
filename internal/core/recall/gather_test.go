package recall

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

// fakeSource answers from issue files; Search returns index rows by agent
// or, for text, every row of other issues.
type fakeSource struct {
	issues  map[int][]memory.Observation
	broken  map[int]bool
	fetched []int
}

func (f *fakeSource) GetByIssue(_ context.Context, issue int) ([]memory.Observation, error) {
	f.fetched = append(f.fetched, issue)
	if f.broken[issue] {
		return nil, errors.New("corrupt")
	}
	return f.issues[issue], nil
}

func (f *fakeSource) Search(_ context.Context, q memory.Query) ([]memory.Row, error) {
	var rows []memory.Row
	for n := 1; n <= 10; n++ {
		for _, o := range f.issues[n] {
			if q.Agent != "" && o.Agent != q.Agent {
				continue
			}
			rows = append(rows, memory.Row{Entry: o.Entry()})
		}
	}
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
	}
	return rows, nil
}

func TestGather(t *testing.T) {
	t.Parallel()
	src := &fakeSource{issues: map[int][]memory.Observation{}, broken: map[int]bool{7: true}}
	for n := 1; n <= 7; n++ {
		o := obs(fmt.Sprintf("obs-engineer-%d-1-aaaaaa", n), float64(n), 1, fmt.Sprintf("login rate limiter note %d", n))
		o.IssueNumber = n
		src.issues[n] = []memory.Observation{o}
	}
	cands, err := Gather(context.Background(), src, GatherOptions{Agent: "engineer", Issue: 1, HasIssue: true,
		Keywords: []string{"login"}, Now: now, Pending: map[string]int{"obs-engineer-1-1-aaaaaa": 3, "obs-engineer-2-1-aaaaaa": 2}})
	if err != nil {
		t.Fatal(err)
	}
	// The issue's own observation comes first, complete, with its pending
	// recalls; the other issues appear once per search that found them.
	if cands[0].Origin != FromIssue || cands[0].Obs.IssueNumber != 1 || cands[0].Obs.RecallCount != 4 {
		t.Fatalf("first = %+v", cands[0])
	}
	full, summaries := 0, 0
	for _, c := range cands[1:] {
		if c.Obs.IssueNumber == 1 {
			t.Fatalf("issue 1 gathered twice: %+v", c)
		}
		if c.Obs.Content != "" {
			full++
		} else {
			summaries++
		}
	}
	// At most HydrateIssues other issue files are read (plus issue 1 itself).
	if len(src.fetched) > 1+HydrateIssues || full == 0 || summaries == 0 {
		t.Fatalf("fetched %v, %d full, %d summaries", src.fetched, full, summaries)
	}
	if !reflect.DeepEqual(src.fetched[:1], []int{1}) {
		t.Fatalf("fetched %v", src.fetched)
	}
}

type fakeGit struct {
	out string
	err error
}

func (f fakeGit) Git(context.Context, ...string) (string, error) { return f.out, f.err }

func TestRecentSubjects(t *testing.T) {
	t.Parallel()
	if got := RecentSubjects(context.Background(), fakeGit{out: "Fix login\nAdd limiter\n"}, 20); !reflect.DeepEqual(got, []string{"Fix login", "Add limiter"}) {
		t.Fatalf("subjects = %q", got)
	}
	if got := RecentSubjects(context.Background(), fakeGit{err: errors.New("not a repository")}, 20); got != nil {
		t.Fatalf("subjects on error = %q", got)
	}
}
