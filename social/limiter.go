package social

// Limiter bounds how often each sender may act: a burst of Burst actions,
// then one every Every ticks. It keeps, per sender, the tick at which its
// bucket is full again (the generic cell rate algorithm: no floats, no
// refill loop). The zero Limiter allows everything.
type Limiter struct {
	Burst int    // actions at once, at least 1
	Every uint64 // ticks per action after the burst
	full  map[uint32]uint64
}

// Allow takes one action of sender at tick now. It reports whether it is
// allowed and, when it is not, how many ticks the sender must wait.
func (l *Limiter) Allow(sender uint32, now uint64) (ok bool, wait uint64) {
	if l.Every == 0 {
		return true, 0
	}
	tat := max(l.full[sender], now)
	slack := uint64(max(l.Burst, 1)-1) * l.Every
	if tat-now > slack {
		return false, tat - now - slack
	}
	if l.full == nil {
		l.full = map[uint32]uint64{}
	}
	l.full[sender] = tat + l.Every
	return true, 0
}

// Forget drops what the limiter keeps of sender (it left the room).
func (l *Limiter) Forget(sender uint32) { delete(l.full, sender) }
