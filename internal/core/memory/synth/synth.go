// Package synth generates synthetic but realistic memory observations
// (decisions, code changes, errors, key facts of a software team) for
// benchmarks and for trying agentx at scale.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

var (
	agents     = []string{"engineer", "architect", "product-manager", "reviewer", "ux-designer", "devops-engineer", "tester", "data-scientist"}
	components = []string{"authentication middleware", "login form", "session store", "payment service", "checkout flow", "search API",
		"notification worker", "user profile page", "billing webhook", "rate limiter", "audit log", "file upload handler",
		"GraphQL gateway", "CSV export", "dashboard charts", "password reset email", "feature flag client", "cache layer",
		"database migration", "OAuth callback", "image resizer", "admin console", "mobile sync endpoint", "invoice PDF renderer"}
	techs = []string{"PostgreSQL", "Redis", "SQLite", "Kafka", "S3", "JWT", "bcrypt", "gRPC", "React", "TypeScript", "Go", "Docker",
		"Terraform", "nginx", "Elasticsearch", "RabbitMQ", "OpenTelemetry", "Prometheus", "GitHub Actions", "Kubernetes"}
	files = []string{"src/auth/middleware.ts", "src/api/search.go", "internal/billing/webhook.go", "web/components/LoginForm.tsx",
		"migrations/0042_add_index.sql", "src/workers/notify.py", "pkg/ratelimit/bucket.go", "src/lib/cache.ts", "deploy/helm/values.yaml",
		"src/export/csv_writer.rb", "app/models/invoice.rb", "cmd/server/main.go", "src/hooks/useSession.ts", "infra/main.tf"}
	errorsText = []string{"ECONNREFUSED when connecting to %s on port 5432", "timeout after 30s waiting for %s",
		"nil pointer dereference in %s under concurrent requests", "race condition: two writers updated %s at once",
		"TypeError: cannot read properties of undefined in %s", "deadlock detected between %s and the job queue",
		"out of memory while %s processed a 2 GB upload", "401 Unauthorized from %s after token refresh",
		"flaky test: %s fails one run in twenty on CI", "migration failed: duplicate key in %s"}
	decisions = []string{"Decided to move %s behind %s to keep latency under 100 ms",
		"Chose %s over a hand-written solution for %s because it is already in the stack",
		"Agreed to keep %s stateless and store sessions in %s",
		"Use optimistic locking in %s instead of a global mutex around %s",
		"Split %s into a separate service; it talks to the rest over %s",
		"Cache %s responses in %s for five minutes, invalidated on write"}
	facts = []string{"%s must respond within 200 ms at the 95th percentile",
		"Customers on the legacy plan still call %s through %s",
		"%s is owned by the platform team; changes need their review",
		"Retry budget for %s is three attempts with exponential backoff",
		"%s stores timestamps in UTC with millisecond precision",
		"Load test shows %s handles 2,000 requests per second on %s"}
	changes = []string{"Modified %s to validate tokens before hitting %s", "Created %s with unit tests for %s",
		"Refactored %s: extracted the retry logic used by %s", "Added structured logging to %s around %s calls",
		"Deleted dead code in %s left over from the %s migration", "Renamed handlers in %s to match the %s naming"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// fill replaces each %s of tmpl in turn with the next arg (templates take
// one or two).
func fill(tmpl string, args ...string) string {
	for _, a := range args {
		tmpl = strings.Replace(tmpl, "%s", a, 1)
	}
	return tmpl
}

// Observations returns n observations spread over issues 1..issues, with
// timestamps over the year before end, in chronological order.
func Observations(n, issues int, seed uint64, end time.Time) []memory.Observation {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]memory.Observation, 0, n)
	start := end.Add(-365 * 24 * time.Hour)
	step := time.Duration(int64(365*24*time.Hour) / int64(max(n, 1)))
	for i := 0; i < n; i++ {
		issue := 1 + r.IntN(max(issues, 1))
		agent := pick(r, agents)
		comp, tech := pick(r, components), pick(r, techs)
		var cat memory.Category
		var text string
		switch k := r.IntN(10); {
		case k < 3:
			cat, text = memory.Decision, fill(pick(r, decisions), comp, tech)
		case k < 6:
			cat, text = memory.CodeChange, fill(pick(r, changes), pick(r, files), comp)
		case k < 8:
			cat, text = memory.Error, fill(pick(r, errorsText), comp)
		default:
			cat, text = memory.KeyFact, fill(pick(r, facts), comp, tech)
		}
		if r.IntN(3) == 0 {
			f := fill(pick(r, facts), pick(r, components), pick(r, techs))
			text += fmt.Sprintf(". Follow-up for issue #%d: %s%s", issue, strings.ToLower(f[:1]), f[1:])
		}
		t := start.Add(time.Duration(i) * step)
		o := memory.Observation{Agent: agent, IssueNumber: issue, Category: cat, Content: text,
			Summary: memory.Summarize(text), Tokens: memory.EstimateTokens(text), Timestamp: clock.Format(t),
			SessionID: fmt.Sprintf("%s-%d-%06x", agent, t.UnixMilli(), r.Uint32()&0xffffff)}
		o.ID = fmt.Sprintf("obs-%s-%d-%d-%06x", strings.ReplaceAll(agent, "-", ""), issue, t.UnixMilli(), r.Uint32()&0xffffff)
		out = append(out, o)
	}
	return out
}
