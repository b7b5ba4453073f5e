package ratelimit

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var startTime = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

func TestRateLimiterRefillsAndForgets(t *testing.T) {
	t.Parallel()
	l := New(2, time.Minute)
	now := startTime
	if got := []bool{l.Allow("a", now), l.Allow("a", now), l.Allow("a", now)}; !slices.Equal(got, []bool{true, true, false}) {
		t.Fatalf("burst of 2 not enforced: %v", got)
	}
	if !l.Allow("a", now.Add(time.Minute)) {
		t.Error("no refill after a minute")
	}
	l.dropFull(now.Add(time.Hour))
	if len(l.buckets) != 0 {
		t.Error("full buckets were not dropped")
	}
}

// TestRateLimitHoldsAnIPv6Subnet: an IPv6 client's addresses share
// their /64's bucket, so walking through them buys no fresh tokens; an
// IPv4 address, and another /64, have their own.
func TestRateLimitHoldsAnIPv6Subnet(t *testing.T) {
	t.Parallel()
	l := New(2, time.Hour)
	now := startTime
	for _, ip := range []string{"2001:db8:1:2::1", "2001:db8:1:2::ffff"} {
		if !l.Allow(ip, now) {
			t.Fatalf("%s: refused within the burst", ip)
		}
	}
	if l.Allow("2001:db8:1:2:abcd::9", now) || l.Allow("2001:db8:1:2::77", now) {
		t.Error("a third address of the same /64 got a token")
	}
	for _, ip := range []string{"2001:db8:1:3::1", "192.0.2.1", "192.0.2.2", "::ffff:192.0.2.3"} {
		if !l.Allow(ip, now) {
			t.Errorf("%s shares a bucket it should not", ip)
		}
	}
}

// Past maxTrackedIPs clients, full buckets are dropped; when every
// bucket is in use, the next sweep waits until their number doubled, so
// a busy limiter is not scanned whole for each new client.
func TestSweepsAreAmortized(t *testing.T) {
	t.Parallel()
	l := New(2, time.Hour)
	now := startTime
	for i := range maxTrackedIPs {
		l.Allow(fmt.Sprint("busy-", i), now) // one token left: in use
	}
	l.Allow("one more", now)
	if len(l.buckets) != maxTrackedIPs+1 || l.sweepAt != 2*maxTrackedIPs {
		t.Fatalf("%d buckets, next sweep at %d", len(l.buckets), l.sweepAt)
	}
	later := now.Add(3 * time.Hour) // every bucket full again
	for i := range maxTrackedIPs + 1 {
		l.Allow(fmt.Sprint("new-", i), later)
	}
	if len(l.buckets) > maxTrackedIPs+2 {
		t.Errorf("%d buckets: the full ones were not dropped at the doubled size", len(l.buckets))
	}
}

// TestConcurrentHoldsAtMostMaxPerKey: a key gets max at once, another
// key its own; what is released can be taken again, and a key holding
// nothing is forgotten.
func TestConcurrentHoldsAtMostMaxPerKey(t *testing.T) {
	t.Parallel()
	c := NewConcurrent(2)
	if got := []bool{c.Acquire("a"), c.Acquire("a"), c.Acquire("a")}; !slices.Equal(got, []bool{true, true, false}) {
		t.Fatalf("three at once for one key: %v, want the third refused", got)
	}
	if !c.Acquire("b") {
		t.Fatal("another key shares the first one's count")
	}
	c.Release("a")
	if !c.Acquire("a") || c.Acquire("a") {
		t.Fatal("a released one cannot be taken again once, or more were")
	}
	c.Release("a")
	c.Release("a")
	c.Release("b")
	if len(c.held) != 0 {
		t.Errorf("keys holding nothing are kept: %v", c.held)
	}
}

// BenchmarkNewClientWhileAllBusy is a new client's first request while
// maxTrackedIPs others hold buckets in use (an attack from many
// addresses): go test -bench NewClient ./internal/ratelimit
func BenchmarkNewClientWhileAllBusy(b *testing.B) {
	l := New(2, time.Hour)
	for i := range maxTrackedIPs {
		l.Allow(fmt.Sprint("busy-", i), startTime)
	}
	i := 0
	for b.Loop() {
		i++
		l.Allow(fmt.Sprint("new-", i), startTime)
	}
}
