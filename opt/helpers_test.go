package opt

import (
	"fmt"
	"math"
)

func fmtSscan(s string, v *float32) (int, error) { return fmt.Sscan(s, v) }
func mathFloat32bits(f float32) uint32           { return math.Float32bits(f) }
