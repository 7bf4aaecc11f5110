package intake

import (
	"io"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// A capture's input as `memory capture` takes it: a host payload or a
// summary, from a file named on the command line or from stdin.

// fromFile reports whether file names a file ("" and "-" are stdin).
func fromFile(file string) bool { return file != "" && file != "-" }

// ReadInput reads a capture's input from file through readFile (which
// bounds it), or from stdin when file is "" or "-"; a read that fails
// without a code is INVALID_INPUT.
func ReadInput(file string, stdin io.Reader, readFile func(what, path string) ([]byte, error)) ([]byte, error) {
	var data []byte
	var err error
	if fromFile(file) {
		data, err = readFile("memory capture --file", file)
	} else {
		data, err = io.ReadAll(io.LimitReader(stdin, capture.MaxPayloadBytes))
	}
	if err != nil && errcode.CodeOf(err) == "" {
		return nil, errcode.New(errcode.InvalidInput, "cannot read the capture input: %v", err)
	}
	return data, err
}

// FromInput is New for the data ReadInput read from file: input that is
// not a capture names the file it came from.
func FromInput(agent string, issue int, data []byte, session, file string) (Capture, error) {
	input := capture.ParseInput(data)
	c, err := New(agent, issue, &input, session)
	if err != nil && fromFile(file) && errcode.Is(err, errcode.InvalidInput) {
		return c, errcode.Wrap(errcode.InvalidInput, err, "memory capture --file: %s", file)
	}
	return c, err
}
