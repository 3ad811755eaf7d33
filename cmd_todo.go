package main

import "errors"

var errNotYet = &usageError{msg: "not implemented yet"}

var _ = errors.New

// EmitCmd is `niro emit`.
type EmitCmd struct {
	File string `arg:""`
}

func (c *EmitCmd) Run(env *Env) error { return errNotYet }

type CompileCmd struct {
	File string `arg:""`
}

func (c *CompileCmd) Run(env *Env) error { return errNotYet }

type RunCmd struct {
	File string `arg:""`
}

func (c *RunCmd) Run(env *Env) error { return errNotYet }

type TestCmd struct {
	File string `arg:""`
}

func (c *TestCmd) Run(env *Env) error { return errNotYet }

type BenchCmd struct {
	File string `arg:""`
}

func (c *BenchCmd) Run(env *Env) error { return errNotYet }

type DoctorCmd struct{}

func (c *DoctorCmd) Run(env *Env) error { return errNotYet }
