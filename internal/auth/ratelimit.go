package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Per-IP limits on the code endpoints, on top of the per-email cooldown
// and the per-code attempt budget. The key is c.RealIP(), which believes X-Forwarded-For only
// from TRUSTED_PROXIES, so a forged header does not buy a fresh bucket.
// The limits are generous for people behind one NAT and for test suites,
// and still stop one machine from mailing thousands of addresses.
const (
	codeSendBurst   = 30
	codeSendEvery   = 20 * time.Second
	codeVerifyBurst = 60
	codeVerifyEvery = 5 * time.Second
	// Wrong codes: what stops one machine from guessing across many
	// addresses now that no address is ever locked (codes.go).
	wrongCodeBurst = 20
	wrongCodeEvery = 3 * time.Minute
)

// maxTrackedIPs bounds the limiter's memory; past it, full buckets (which
// behave exactly like new ones) are dropped.
const maxTrackedIPs = 10_000

// ipLimiter is a token bucket per client IP, in memory. Each instance of
// the app keeps its own: the limit scales with the instances, which is
// acceptable for abuse control (the per-email limits live in the table).
type ipLimiter struct {
	burst int
	every time.Duration

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newIPLimiter(burst int, every time.Duration) *ipLimiter {
	return &ipLimiter{burst: burst, every: every, buckets: map[string]*rate.Limiter{}}
}

// allow takes a token for ip at now, reporting whether there was one.
func (l *ipLimiter) allow(ip string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[ip]
	if b == nil {
		if len(l.buckets) >= maxTrackedIPs {
			l.dropFull(now)
		}
		b = rate.NewLimiter(rate.Every(l.every), l.burst)
		l.buckets[ip] = b
	}
	return b.AllowN(now, 1)
}

// has reports whether ip has a token at now, without taking it.
func (l *ipLimiter) has(ip string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[ip]
	return b == nil || b.TokensAt(now) >= 1
}

func (l *ipLimiter) dropFull(now time.Time) {
	for ip, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, ip)
		}
	}
}
