package web

import (
	"net"
	"net/http"
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

// FromLoopback reports whether r comes straight from this machine: the
// connection's peer is a loopback address and no proxy header names
// another client. A proxy on the same host forwards strangers from
// loopback, so any forwarding header counts against it. Development tools
// that show secrets (the dev mailbox's sign-in codes) serve only such
// requests.
func FromLoopback(r *http.Request) bool {
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
