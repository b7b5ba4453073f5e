// Package ratelimit limits how fast one client may do something costly
// (send a sign-in code, join a group as a guest): a token bucket per
// client address, in memory.
package ratelimit

import (
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxTrackedIPs bounds the limiter's memory; past it, full buckets (which
// behave exactly like new ones) are dropped.
const maxTrackedIPs = 10_000

// PerIP is a token bucket per client IP, in memory. Each instance of the
// app keeps its own: the limit scales with the instances, which is
// acceptable for abuse control (limits that must hold across instances
// live in a table: internal/storage/quota). Key it by c.RealIP(), which
// believes X-Forwarded-For only from TRUSTED_PROXIES, so a forged header
// buys no fresh bucket.
type PerIP struct {
	burst int
	every time.Duration

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	// sweepAt is the size at which full buckets are next dropped: twice
	// what the last sweep left (at least maxTrackedIPs), so a map of
	// buckets that are all in use is not scanned on every new client.
	sweepAt int
}

// New is a limiter of burst tokens per client, one more every every.
func New(burst int, every time.Duration) *PerIP {
	return &PerIP{burst: burst, every: every, buckets: map[string]*rate.Limiter{}}
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

// Allow takes a token for ip at now, reporting whether there was one.
func (l *PerIP) Allow(ip string, now time.Time) bool {
	return l.bucket(ip, now).AllowN(now, 1)
}

// Take takes a token for ip at now as Allow does, and gives a function
// that puts it back: for an attempt that counts only once its outcome is
// known (a wrong code), taken before it runs so that attempts at once
// cannot all pass a check made while none of them had counted yet.
func (l *PerIP) Take(ip string, now time.Time) (giveBack func(), ok bool) {
	r := l.bucket(ip, now).ReserveN(now, 1)
	if !r.OK() || r.DelayFrom(now) > 0 {
		r.CancelAt(now)
		return nil, false
	}
	return func() { r.CancelAt(now) }, true
}

// bucket is ip's bucket, made on first use.
func (l *PerIP) bucket(ip string, now time.Time) *rate.Limiter {
	ip = clientKey(ip)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[ip]
	if b == nil {
		if len(l.buckets) >= max(l.sweepAt, maxTrackedIPs) {
			l.dropFull(now)
			l.sweepAt = 2 * len(l.buckets)
		}
		b = rate.NewLimiter(rate.Every(l.every), l.burst)
		l.buckets[ip] = b
	}
	return b
}

func (l *PerIP) dropFull(now time.Time) {
	for ip, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, ip)
		}
	}
}
