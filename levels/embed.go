package levels

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:generate go run ./gen -o data/main-city.json

// files holds the shipped levels: data/<name>.json.
//
//go:embed data/*.json
var files embed.FS

// Names returns the names of the embedded levels, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, "data")
	if err != nil {
		return nil // cannot happen: the directory is embedded
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, name)
		}
	}
	return names
}

// Load parses and validates the embedded level name ("main-city",
// "test-flat"). Each call returns a new Level the caller may keep and
// change. An unknown name is an error matching ErrUnknownLevel; a level
// whose name field differs from its file's is invalid.
func Load(name string) (*Level, error) {
	data, err := Raw(name)
	if err != nil {
		return nil, err
	}
	file := name + ".json"
	l, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	if l.Name != name {
		return nil, &Error{File: file, Path: "name", Msg: fmt.Sprintf("%q differs from the file's name %q", l.Name, name)}
	}
	return l, nil
}

// Raw returns the bytes of the embedded level name, as committed (a copy
// the caller may keep).
func Raw(name string) ([]byte, error) {
	if !validName(name) {
		return nil, fmt.Errorf("levels: %w %q", ErrUnknownLevel, name)
	}
	data, err := files.ReadFile("data/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("levels: %w %q (have %s)", ErrUnknownLevel, name, strings.Join(Names(), ", "))
	}
	return data, nil
}
