package auth

import "time"

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
