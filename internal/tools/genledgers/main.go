// Command genledgers writes a synthetic workspace of clarification ledgers
// for measuring the monitor and the hooks (see docs/PERFORMANCE.md):
//
//	go run ./internal/tools/genledgers -root /tmp/ws1k -issues 1000 -records 5000 -open 200
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agentx-dev/agentx/internal/core/monitor/synth"
)

func main() {
	root := flag.String("root", "", "workspace `dir` to write (.agentx/state/clarifications/ under it)")
	issues := flag.Int("issues", 1000, "number of issues (one ledger each)")
	records := flag.Int("records", 5000, "records in all")
	open := flag.Int("open", 200, "open records (pending or answered), at most one per issue")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *root == "" {
		fmt.Fprintln(os.Stderr, "genledgers: -root is required")
		os.Exit(2)
	}
	if err := synth.Write(*root, synth.Options{Issues: *issues, Records: *records, Open: *open, Seed: *seed}); err != nil {
		fmt.Fprintln(os.Stderr, "genledgers:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d ledgers (%d records, %d open) under %s\n", *issues, *records, *open, *root)
}
