package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/niro-dev/niro/internal/safefile"

	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/niro"
)

// ImportCmd is `niro import`.
type ImportCmd struct {
	Model   string `arg:"" help:"ONNX model file." type:"existingfile"`
	Output  string `short:"o" help:"Write the IR to FILE instead of standard output." placeholder:"FILE"`
	Summary bool   `help:"Print a summary of the model instead of the IR."`
	JSON    bool   `name:"json" help:"Print the summary as JSON (implies --summary)."`
	ShapeFlags
}

// Run imports the model and prints its IR or summary.
func (c *ImportCmd) Run(env *Env) error {
	if !isONNX(c.Model) {
		return usagef("import reads .onnx models; %s is not one", c.Model)
	}
	opts, err := c.options()
	if err != nil {
		return err
	}
	if c.Summary || c.JSON {
		_, s, err := importer.Import(c.Model, opts)
		if err != nil {
			return err
		}
		if c.JSON {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(s); err != nil {
				return err
			}
			return writeOutput(env, c.Output, buf.Bytes())
		}
		return writeOutput(env, c.Output, []byte(s.String()))
	}
	m, s, err := importer.Import(c.Model, opts)
	if err != nil {
		return err
	}
	for _, w := range s.Warnings {
		env.progressf("warning: %s: %s", c.Model, w)
	}
	return writeOutput(env, c.Output, []byte(m.String()))
}

// VerifyCmd is `niro verify`.
type VerifyCmd struct {
	File string `arg:"" help:"A .onnx or .niro file." type:"existingfile"`
	ShapeFlags
}

// Run verifies the file; diagnostics go to standard error.
func (c *VerifyCmd) Run(env *Env) error {
	if _, err := loadModule(c.File, c.ShapeFlags); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: ok\n", c.File)
	return nil
}

// FmtCmd is `niro fmt`.
type FmtCmd struct {
	File   string `arg:"" help:"A .niro file." type:"existingfile"`
	Output string `short:"o" help:"Write to FILE instead of standard output." placeholder:"FILE"`
	Write  bool   `short:"w" help:"Rewrite the file in place."`
}

// Run parses the file and prints it in canonical form. It does not require
// the IR to verify, so invalid IR can be formatted too.
func (c *FmtCmd) Run(env *Env) error {
	src, err := safefile.ReadFile(c.File)
	if err != nil {
		return err
	}
	m, err := niro.Parse(c.File, src)
	if err != nil {
		return err
	}
	out := c.Output
	if c.Write {
		out = c.File
		safefile.Rewrite(c.File)
	}
	return writeOutput(env, out, []byte(m.String()))
}

// writeOutput writes data to path, or to standard output when path is ""
// or "-". A file is written atomically and may not be an input.
func writeOutput(env *Env, path string, data []byte) error {
	return writeFileOutput(env, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
