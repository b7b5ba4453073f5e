package web

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// clientIP picks how c.RealIP() finds the client: the connection's address,
// or, behind trusted proxies, the right-most X-Forwarded-For entry that no
// trusted proxy added. Echo trusts private and loopback ranges by default;
// here only TRUSTED_PROXIES count.
func clientIP(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{
		echo.TrustLoopback(false),
		echo.TrustLinkLocal(false),
		echo.TrustPrivateNet(false),
	}
	for _, p := range trusted {
		_, ipNet, err := net.ParseCIDR(p.String())
		if err == nil {
			opts = append(opts, echo.TrustIPRange(ipNet))
		}
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
