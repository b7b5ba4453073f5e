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
	return Device{Browser: firstMatch(ua, browserMarks), OS: firstMatch(ua, osMarks)}
}

// mark names what a user agent holding any of its tokens is; the first
// match wins, so the more specific come first (Edge says Chrome too).
type mark struct {
	name   string
	tokens []string
}

var browserMarks = []mark{
	{"Edge", []string{"Edg/", "Edge/"}},
	{"Opera", []string{"OPR/", "Opera"}},
	{"Yandex Browser", []string{"YaBrowser/"}},
	{"Samsung Internet", []string{"SamsungBrowser/"}},
	{"Firefox", []string{"Firefox/", "FxiOS/"}},
	{"Chrome", []string{"Chrome/", "Chromium/", "CriOS/"}},
	{"Safari", []string{"Safari/"}},
	{"curl", []string{"curl/"}},
}

var osMarks = []mark{
	{"iOS", []string{"iPhone", "iPad", "iPod"}},
	{"Android", []string{"Android"}},
	{"Windows", []string{"Windows"}},
	{"ChromeOS", []string{"CrOS"}},
	{"macOS", []string{"Mac OS X", "Macintosh"}},
	{"Linux", []string{"Linux"}},
}

func firstMatch(ua string, marks []mark) string {
	for _, m := range marks {
		for _, t := range m.tokens {
			if strings.Contains(ua, t) {
				return m.name
			}
		}
	}
	return ""
}
