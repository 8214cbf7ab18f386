package levels

import (
	"errors"
	"strconv"
)

// ErrInvalid is the error every bad level file matches (errors.Is): bad JSON,
// a field of the wrong type or unknown, or a value the format does not allow.
var ErrInvalid = errors.New("invalid level")

// ErrUnknownLevel is returned by Load for a name no embedded level has.
var ErrUnknownLevel = errors.New("unknown level")

// Error is what is wrong with a level file: which file, where in it and what.
// It matches ErrInvalid.
type Error struct {
	// File is the file's name as the caller gave it ("main-city.json").
	File string
	// Path is the JSON path of the bad value ("roads.lanes[12].to"); ""
	// is the whole file.
	Path string
	// Line and Col are the 1-based position in the file of a JSON error
	// (syntax, type, unknown field); 0 when the error is about a value
	// found by Validate.
	Line, Col int
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as file[:line:col]: path: msg.
func (e *Error) Error() string {
	b := make([]byte, 0, len(e.File)+len(e.Path)+len(e.Msg)+16)
	b = append(b, e.File...)
	if e.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.Line), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.Col), 10)
	}
	b = append(b, ": "...)
	if e.Path != "" {
		b = append(b, e.Path...)
		b = append(b, ": "...)
	}
	b = append(b, e.Msg...)
	return string(b)
}

// Is reports whether target is ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }
