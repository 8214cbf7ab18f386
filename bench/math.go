package bench

import "github.com/chewxy/math32"

func atan2(y, x float32) float32 { return math32.Atan2(y, x) }
