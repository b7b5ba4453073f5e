package account

import "strings"

// Device is a session's browser and operating system, as far as its
// User-Agent tells; "" for either means unknown.
type Device struct {
	Browser string
	OS      string
}

// ParseUserAgent recognises the common browsers and systems well enough to
// tell one's own devices apart. The order of the checks matters: Edge and
// Opera also say "Chrome", Chrome also says "Safari", Android also says
// "Linux", iOS also says "Mac OS X".
func ParseUserAgent(ua string) Device {
	var d Device
	switch {
	case strings.Contains(ua, "Edg/") || strings.Contains(ua, "Edge/"):
		d.Browser = "Edge"
	case strings.Contains(ua, "OPR/") || strings.Contains(ua, "Opera"):
		d.Browser = "Opera"
	case strings.Contains(ua, "YaBrowser/"):
		d.Browser = "Yandex Browser"
	case strings.Contains(ua, "SamsungBrowser/"):
		d.Browser = "Samsung Internet"
	case strings.Contains(ua, "Firefox/") || strings.Contains(ua, "FxiOS/"):
		d.Browser = "Firefox"
	case strings.Contains(ua, "Chrome/") || strings.Contains(ua, "Chromium/") || strings.Contains(ua, "CriOS/"):
		d.Browser = "Chrome"
	case strings.Contains(ua, "Safari/"):
		d.Browser = "Safari"
	case strings.HasPrefix(ua, "curl/"):
		d.Browser = "curl"
	}
	switch {
	case strings.Contains(ua, "iPhone") || strings.Contains(ua, "iPad") || strings.Contains(ua, "iPod"):
		d.OS = "iOS"
	case strings.Contains(ua, "Android"):
		d.OS = "Android"
	case strings.Contains(ua, "Windows"):
		d.OS = "Windows"
	case strings.Contains(ua, "CrOS"):
		d.OS = "ChromeOS"
	case strings.Contains(ua, "Mac OS X") || strings.Contains(ua, "Macintosh"):
		d.OS = "macOS"
	case strings.Contains(ua, "Linux"):
		d.OS = "Linux"
	}
	return d
}
