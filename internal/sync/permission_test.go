package sync

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

func TestPermissionErrorFromA403(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		header, message string
		want            string // PermissionsYAML of Permissions()
		isPerm          bool
	}{
		{"issues=write", "Resource not accessible by integration", "permissions:\n  issues: write\n", true},
		{"issues=write; pull_requests=write", "Resource not accessible by integration", "permissions:\n  issues: write\n", true},
		{"contents=read,pull_requests=write", "Resource not accessible by integration", "permissions:\n  contents: read\n  pull-requests: write\n", true},
		{"", "Resource not accessible by integration", "permissions:\n", true},
		{"", "Must have admin rights to Repository.", "", false},
	} {
		h := http.Header{}
		if tt.header != "" {
			h.Set("X-Accepted-GitHub-Permissions", tt.header)
		}
		hr := &http.Response{StatusCode: 403, Header: h}
		err := wrap("comment on #1", &github.Response{Response: hr}, &github.ErrorResponse{Response: hr, Message: tt.message})
		if errors.Is(err, ErrPermission) != tt.isPerm {
			t.Fatalf("%q %q: ErrPermission %v, want %v (%v)", tt.header, tt.message, !tt.isPerm, tt.isPerm, err)
		}
		var pe *PermissionError
		if !tt.isPerm {
			continue
		}
		if !errors.As(err, &pe) || PermissionsYAML(pe.Permissions()) != tt.want {
			t.Fatalf("%q: %v -> %q, want %q", tt.header, err, PermissionsYAML(pe.Permissions()), tt.want)
		}
		if tt.header != "" && !strings.Contains(err.Error(), "the call needs") {
			t.Fatalf("message %q does not say what the call needs", err)
		}
	}
}

// The defaults keep a run under GitHub's content-creation limits: at most
// 80 writes a minute (the pacing) and fewer than 500 in a run, so even a
// first sync of a large backlog never trips them within one run.
func TestDefaultBudgetsStayUnderContentLimits(t *testing.T) {
	t.Parallel()
	if perMinute := time.Minute / DefaultWriteInterval; perMinute > 80 {
		t.Fatalf("write-interval %v allows %d writes a minute", DefaultWriteInterval, perMinute)
	}
	if DefaultOperationsPerRun >= 500 {
		t.Fatalf("operations-per-run %d reaches GitHub's 500 an hour in one run", DefaultOperationsPerRun)
	}
}
