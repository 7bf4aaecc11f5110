package sync

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

// BenchmarkPlan100x5 is the pure part of a sync of 100 issues x 5 entries:
// rendering, hashing and planning against comments already in place.
func BenchmarkPlan100x5(b *testing.B) {
	led := corpus(100)
	have := make([][]Existing, len(led))
	for i, ld := range led {
		for j, w := range Desired(ld.Ledger, testLabels, ident).Comments {
			have[i] = append(have[i], Existing{ID: int64(j), Author: githubfake.BotLogin, Body: w.Body})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, ld := range led {
			w := Desired(ld.Ledger, testLabels, ident)
			_ = w.Hash(githubfake.BotLogin)
			if ops := PlanComments(w.Comments, have[i], githubfake.BotLogin); len(ops) != 0 {
				b.Fatal(ops)
			}
		}
	}
}

// BenchmarkUnchangedRun100 is the run users feel most: nothing changed,
// every issue skipped by its state hash, no API call.
func BenchmarkUnchangedRun100(b *testing.B) {
	fake := newFakeWithIssues(100)
	defer fake.Close()
	c, _ := NewClient(ClientConfig{APIURL: fake.URL(), Token: "t", Repository: "o/r", WriteInterval: -1})
	led := corpus(100)
	st := NewState()
	if err := (&Syncer{GH: c, Labels: testLabels, Bot: githubfake.BotLogin, Clean: ident}).Run(context.Background(), led, st); err != nil {
		b.Fatal(err)
	}
	fake.ResetCounts()
	b.ReportAllocs()
	for b.Loop() {
		if err := (&Syncer{GH: c, Labels: testLabels, Bot: githubfake.BotLogin, Clean: ident}).Run(context.Background(), led, st); err != nil {
			b.Fatal(err)
		}
	}
	if fake.Reads()+fake.Writes() != 0 {
		b.Fatalf("%d calls", fake.Reads()+fake.Writes())
	}
}
