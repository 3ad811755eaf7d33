package main

import (
	"errors"

	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/niro"
)

func importImport(path string, opts importer.Options) (*niro.Module, error) {
	return nil, errors.New("not yet")
}

type summ struct{}

func (summ) String() string { return "" }
func importSummarize(path string, opts importer.Options) (summ, error) {
	return summ{}, errors.New("not yet")
}
