package config

import (
	"errors"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// What the commands check against the configuration before they act.

// CheckAgentName checks an agent name a command was given (flag names
// where): its form, then that the workflows or config know it, when load
// gives a configuration naming any. load is called only for a well-formed
// name, so a malformed one is refused before the config is read.
func CheckAgentName(flag, agent string, load func() (*Set, error)) error {
	if err := validate.Agent(strings.TrimPrefix(flag, "--"), agent); err != nil {
		return err
	}
	if cfg, err := load(); err == nil {
		return cfg.CheckAgent(flag, agent)
	}
	return nil
}

// ReadInput reads a file named on the command line (what is the flag)
// within [limits] input_file; the refusal of a larger file says which key
// raises the limit.
func (l LimitsSettings) ReadInput(what, path string) ([]byte, error) {
	data, err := atomicfile.ReadInput(what, path, l.InputFileBytes())
	var pe *errcode.Error
	if errors.Is(err, atomicfile.ErrTooLarge) && errors.As(err, &pe) {
		pe.Message += " ([limits] input_file)"
		pe.Hint = "[limits] input_file in .agentx/agentx.toml sets the limit (default 10MB)"
	}
	return data, err
}
