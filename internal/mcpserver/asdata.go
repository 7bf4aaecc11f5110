package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// Stored text as data (issue 32). The tools hand summaries, contents,
// topics and bodies that agents and people wrote to the calling agent:
// the converters neutralise host-reserved tags and role lines in them
// (sanitize.Neutralize), JSON quotes every string so none can close its
// frame, and asData puts the one line that says what they are before the
// JSON the client reads. The structured result is the same document.

// storedText marks the results that carry stored text.
type storedText interface{ storedText() }

func (*SearchResult) storedText()       {}
func (*ObservationsResult) storedText() {}
func (*ClarifyResult) storedText()      {}
func (*ShowResult) storedText()         {}
func (*InboxResult) storedText()        {}

// asData is out's text content, framed, when out carries stored text;
// nil (the SDK's own JSON text) otherwise.
func asData(out any) *mcp.CallToolResult {
	if _, ok := out.(storedText); !ok {
		return nil
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sanitize.NotesLine + "\n" + string(data)}}}
}
