package verify

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
)

// configuration checks agentx.toml and the workflow files as every
// command loads them (config.Load): a file that does not parse stops
// every command that reads the configuration, so it is an error; a key
// the toolkit does not read, or an unknown mode, is a warning at its line.
// They are read like Load reads them (a symlinked configuration is
// followed: people keep dotfiles that way), not like state files.
func (c *checker) configuration() {
	if data, ok := c.readConfig(c.ws.ConfigFile()); ok {
		cfg, err := config.ParseConfig(c.rel(c.ws.ConfigFile()), data)
		if err != nil {
			c.configError(CodeConfigCorrupt, c.ws.ConfigFile(), err)
		}
		for _, w := range cfg.WarningsAt {
			code := CodeConfigUnknownKey
			if w.Kind == config.WarnUnknownMode {
				code = CodeConfigMode
			}
			c.add(Problem{Code: code, Severity: Warning, Path: w.Path, Offset: -1, Line: w.Line, Message: w.Message})
		}
	}
	dir := c.ws.WorkflowsDir()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(dir), Offset: -1, Message: err.Error()})
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if data, ok := c.readConfig(p); ok {
			if _, err := config.ParseWorkflow(c.rel(p), data); err != nil {
				c.configError(CodeWorkflowCorrupt, p, err)
			}
		}
	}
}

// readConfig reads a configuration file as config.Load does; a missing
// file is no problem (every setting has a default).
func (c *checker) readConfig(path string) ([]byte, bool) {
	data, err := atomicfile.ReadRegular(path, config.MaxFileBytes)
	switch {
	case err == nil:
		return data, true
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, atomicfile.ErrNotRegular):
		c.add(Problem{Code: CodeNotRegular, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()})
	default:
		c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()})
	}
	return nil, false
}

// configError reports a file that does not load, at the line the TOML
// decoder names when it names one.
func (c *checker) configError(code, path string, err error) {
	p := Problem{Code: code, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		p.Line = pe.Position.Line
		p.Offset = int64(pe.Position.Start)
	}
	c.add(p)
}
