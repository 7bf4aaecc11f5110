module github.com/agentx-dev/agentx

go 1.26

require github.com/BurntSushi/toml v1.5.0
