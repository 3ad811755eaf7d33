package main

import (
	"fmt"
	"os"
	"reflect"

	"github.com/alecthomas/kong"
)

// pathMappers replace kong's existingfile and existingdir mappers, which
// make every path absolute: niro checks that the path exists but keeps it
// as the user typed it, so that messages echo it that way.
func pathMappers() []kong.Option {
	return []kong.Option{
		kong.NamedMapper("existingfile", existingMapper(false)),
		kong.NamedMapper("existingdir", existingMapper(true)),
	}
}

func existingMapper(dir bool) kong.MapperFunc {
	return func(ctx *kong.DecodeContext, target reflect.Value) error {
		if target.Kind() != reflect.String {
			return fmt.Errorf("existing path mapper applied to %s, not a string", target.Type())
		}
		var path string
		if err := ctx.Scan.PopValueInto("path", &path); err != nil {
			return err
		}
		if !ctx.Value.Active || (ctx.Value.Set && ctx.Value.Target.Type() == target.Type()) {
			return nil // as kong's own mapper: only the value given is checked
		}
		if err := checkExists(path, dir); err != nil {
			return err
		}
		target.SetString(path)
		return nil
	}
}

// checkExists reports a path that does not exist or is not of the wanted
// kind, naming the path as given.
func checkExists(path string, dir bool) error {
	if path == "-" && !dir {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("%s: no such file or directory", path)
	case err != nil:
		return err
	case dir && !st.IsDir():
		return fmt.Errorf("%s is not a directory", path)
	case !dir && st.IsDir():
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return nil
}
