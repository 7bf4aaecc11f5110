package ledger

// Inbox is what the open records hold for one agent: the ones waiting for
// its answer (it is their target and owes one) and its own requests. A
// session's start (`hook start`) and the MCP server's clarify_inbox show
// these.
func Inbox(open []Record, agent string) (waiting, requests []Record) {
	for _, r := range open {
		if r.To == agent && r.Status.Waiting() {
			waiting = append(waiting, r)
		}
		if r.From == agent {
			requests = append(requests, r)
		}
	}
	return waiting, requests
}
