package textframe

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// The frames a server sends many times a second across its clients (the
// clock, Wanted and status updates) append their JSON to a caller's buffer:
// byte for byte what json.Marshal writes (TestAppendJSONIsMarshal), without
// the allocations of boxing the frame into an interface and of the result,
// so that a steady server tick allocates nothing.

// AppendJSON appends f as json.Marshal writes it.
func (f *ClockFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"minutes":`...)
	b = appendFloat(b, f.Minutes, 64)
	b = append(b, `,"pace":`...)
	b = appendFloat(b, f.Pace, 64)
	b = append(b, `,"tick":`...)
	b = strconv.AppendUint(b, f.Tick, 10)
	return append(b, '}')
}

// AppendJSON appends f as json.Marshal writes it.
func (f *WantedFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"stars":`...)
	b = strconv.AppendUint(b, uint64(f.Stars), 10)
	b = append(b, `,"heat":`...)
	b = appendFloat(b, float64(f.Heat), 32)
	if f.Arrested {
		b = append(b, `,"arrested":true`...)
	}
	if f.Fine != 0 {
		b = append(b, `,"fine":`...)
		b = strconv.AppendInt(b, f.Fine, 10)
	}
	b = append(b, `,"cash":`...)
	b = strconv.AppendInt(b, f.Cash, 10)
	return append(b, '}')
}

// AppendJSON appends f as json.Marshal writes it.
func (f *StatusFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"hp":`...)
	b = strconv.AppendUint(b, uint64(f.HP), 10)
	b = append(b, `,"maxHp":`...)
	b = strconv.AppendUint(b, uint64(f.MaxHP), 10)
	b = append(b, `,"cash":`...)
	b = strconv.AppendInt(b, f.Cash, 10)
	if f.Dead {
		b = append(b, `,"dead":true`...)
	}
	if f.Cause != "" {
		b = append(b, `,"cause":`...)
		b = appendString(b, f.Cause)
	}
	if f.By != "" {
		b = append(b, `,"by":`...)
		b = appendString(b, f.By)
	}
	if f.ByPlayer != 0 {
		b = append(b, `,"byPlayer":`...)
		b = strconv.AppendUint(b, uint64(f.ByPlayer), 10)
	}
	if f.RespawnIn != 0 {
		b = append(b, `,"respawnIn":`...)
		b = appendFloat(b, f.RespawnIn, 64)
	}
	return append(b, '}')
}

// appendType opens the object with its "type".
func appendType(b []byte, t string) []byte {
	b = append(b, `{"type":`...)
	return appendString(b, t)
}

// appendFloat appends f as encoding/json does for a float of bits bits: the
// shortest representation, in exponent form below 1e-6 and from 1e21 on,
// with a one-digit negative exponent written without its leading zero. NaN
// and the infinities, which json.Marshal refuses, are written as 0 (no
// frame carries one: the clock and the Heat are finite).
func appendFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString appends s as a JSON string as json.Marshal writes it: '"'
// and '\\' escaped, the control characters as \n, \r, \t, \b, \f or
// \u00XX, '<', '>' and '&' as \u003c, \u003e and \u0026, U+2028 and U+2029
// as \u2028 and \u2029, and each byte of invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
