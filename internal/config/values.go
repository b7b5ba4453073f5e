package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// parseDuration is time.ParseDuration plus a whole-day form ("30d"), which is
// how people think about retention and session lifetimes.
func parseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a duration such as 90m, 12h or 30d, got %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 90m, 12h or 30d, got %q", s)
	}
	return d, nil
}

// sizeUnits are binary multiples; K, M and G mean the same as KiB, MiB, GiB.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30},
	{"B", 1},
}

// parseSize reads a byte count such as 4MiB, 512K or 1048576.
func parseSize(s string) (int64, error) {
	num, factor := s, int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, factor = strings.TrimSpace(rest), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/factor {
		return 0, fmt.Errorf("want a size such as 512KiB or 4MiB, got %q", s)
	}
	return n * factor, nil
}

// parsePrefixes reads IPs and CIDRs; a bare IP trusts that one address.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range splitList(s) {
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR", part)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
