package audit

// Child processes of this test binary skip the race detector's exit sleep.
import _ "github.com/agentx-dev/agentx/internal/gorace"
