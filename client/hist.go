package client

import "github.com/chewxy/math32"

// Hist counts sizes (metres) on a log scale, four buckets an octave from
// HistMin: a fixed array, so that counting allocates nothing and the
// histograms of many clients add up (Merge). A quantile is read to the
// bucket, within 19 %.
type Hist struct {
	N      [HistBuckets]uint32
	Zeros  uint64 // sizes below HistMin
	Count  uint64
	MaxVal float32
}

// The histogram's range: HistMin (0.1 mm) up, 4 buckets an octave for 24
// octaves (to 1.6 km); a size above goes in the last bucket.
const (
	HistMin     = 1e-4
	HistBuckets = 96
)

// Add counts one size.
func (h *Hist) Add(v float32) {
	h.Count++
	h.MaxVal = max(h.MaxVal, v)
	if !(v >= HistMin) {
		h.Zeros++
		return
	}
	i := int(4 * math32.Log2(v/HistMin))
	h.N[min(max(i, 0), HistBuckets-1)]++
}

// Merge adds o's counts to h.
func (h *Hist) Merge(o *Hist) {
	for i := range h.N {
		h.N[i] += o.N[i]
	}
	h.Zeros += o.Zeros
	h.Count += o.Count
	h.MaxVal = max(h.MaxVal, o.MaxVal)
}

// Quantile returns the size under which a share p (0..1) of the sizes
// counted fall: the top of its bucket, or 0 when the share falls below
// HistMin (or nothing was counted). It never exceeds the largest size.
func (h *Hist) Quantile(p float64) float32 {
	if h.Count == 0 {
		return 0
	}
	rank := uint64(p * float64(h.Count))
	if rank >= h.Count {
		rank = h.Count - 1
	}
	seen := h.Zeros
	if rank < seen {
		return 0
	}
	for i, n := range h.N {
		seen += uint64(n)
		if rank < seen {
			return min(HistMin*math32.Exp2(float32(i+1)/4), h.MaxVal)
		}
	}
	return h.MaxVal
}
