package social

import "fmt"

// DefaultQuickChat are the quick-chat lines of a game that names none: a
// wheel of eight, by id (their index).
var DefaultQuickChat = []string{
	"Hello!", "Thanks!", "Follow me", "Wait for me", "Need a ride?", "Get in!", "Sorry!", "Good game",
}

// MaxQuickChat bounds a game's quick-chat lines: a wheel holds no more.
const MaxQuickChat = 16

// QuickLine returns line id of lines, or an error naming the ids there are.
func QuickLine(lines []string, id int) (string, error) {
	if id < 0 || id >= len(lines) {
		return "", fmt.Errorf("no quick-chat line %d (0 to %d)", id, len(lines)-1)
	}
	return lines[id], nil
}
