package hookcmd

// helpGroups are the headings of the top-level help, in order, and the
// commands under each (issue 37: 23 commands in one flat list). A command
// of the table (main.go) that no group names is listed under "More", so a
// new command shows up before it is placed here. A function: help is
// rare, and a package-level value is built at every start.
func helpGroups() []struct {
	title    string
	commands []string
} {
	return []struct {
		title    string
		commands []string
	}{
		{"Core", []string{"init", "clarify", "state", "events", "monitor", "ready", "artifact", "digest", "view", "demo"}},
		{"Memory", []string{"memory"}},
		{"Agent hosts", []string{"setup", "hook", "mcp", "doctor", "uninstall"}},
		{"Git and GitHub", []string{"hooks", "git-hook", "merge-driver", "sync"}},
		{"Integrity", []string{"verify", "audit", "checkpoint"}},
		{"Shell", []string{"completion", "version"}},
	}
}

// groupedCommands is the top-level help's listing: each group's commands
// in its order, then "More" for the rest of the table.
func groupedCommands() []struct {
	title    string
	commands []command
} {
	byName := map[string]command{}
	var order []string
	for _, c := range commands() {
		byName[c.name] = c
		order = append(order, c.name)
	}
	placed := map[string]bool{}
	var out []struct {
		title    string
		commands []command
	}
	add := func(title string, names []string) {
		var cs []command
		for _, n := range names {
			if c, ok := byName[n]; ok && !placed[n] {
				cs = append(cs, c)
				placed[n] = true
			}
		}
		if len(cs) > 0 {
			out = append(out, struct {
				title    string
				commands []command
			}{title, cs})
		}
	}
	for _, g := range helpGroups() {
		add(g.title, g.commands)
	}
	add("More", order)
	return out
}
