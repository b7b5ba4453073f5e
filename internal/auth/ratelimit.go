package auth

import (
	"net/netip"
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

// clientKey is the bucket of a client address: the address itself for
// IPv4, its /64 for IPv6, which one subscriber is given whole (RFC 6177),
// so walking through its addresses buys no fresh buckets.
func clientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() || a.Is4In6() {
		return ip
	}
	p, _ := a.Prefix(64) // a valid IPv6 address always has a /64
	return p.String()
}

// allow takes a token for ip at now, reporting whether there was one.
func (l *ipLimiter) allow(ip string, now time.Time) bool {
	ip = clientKey(ip)
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
	ip = clientKey(ip)
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
