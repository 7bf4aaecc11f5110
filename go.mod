module github.com/agentx-dev/agentx

go 1.26

require (
	github.com/BurntSushi/toml v1.5.0
	github.com/google/go-github/v66 v66.0.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sethvargo/go-githubactions v1.4.0
	golang.org/x/sys v0.26.0
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
