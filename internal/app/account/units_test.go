package account

import (
	"strings"
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		born, today string
		want        int
	}{
		{"2000-05-17", "2030-05-17", 30},
		{"2000-05-18", "2030-05-17", 29},
		{"2000-04-30", "2030-05-17", 30},
		{"2000-02-29", "2030-02-28", 29},
		{"2000-02-29", "2030-03-01", 30},
		{"2030-05-17", "2030-05-17", 0},
	}
	for _, tc := range cases {
		if got := Age(day(tc.born), day(tc.today)); got != tc.want {
			t.Errorf("born %s, on %s: %d, want %d", tc.born, tc.today, got, tc.want)
		}
	}
}

func TestValidTimezone(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"UTC", "Europe/Moscow", "America/Argentina/Buenos_Aires", "Asia/Kamchatka"} {
		if !ValidTimezone(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../../etc/passwd", "/etc/localtime", "Europe/Moscow\x00", strings.Repeat("A", 100)} {
		if ValidTimezone(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, tz := range CommonTimezones {
		if !ValidTimezone(tz) {
			t.Errorf("common zone %q is not valid", tz)
		}
	}
}

func TestValidMemberKey(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"auth:01HZX3K5Q8W2VJ7N4M6B9C0D1E", "auth:google-oauth2~7C1234", "auth:abc~2Fdef", "auth:~h" + strings.Repeat("0a", 32)} {
		if !ValidMemberKey(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "auth:", "guest:abc", "user|0", "auth:a/b", "auth:a\\b", "auth:a b", "auth:a%zz", "auth:a%2", "auth:a%2Fb", "auth:a~zz", "auth:a~2", "auth:Анна", "auth:~h00", "auth:a?b", "auth:a#b", "auth:a\x00", "../auth:x", "auth:" + strings.Repeat("x", 600)} {
		if ValidMemberKey(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDirectoryBuckets(t *testing.T) {
	t.Parallel()
	var b directoryBuckets
	var seen []string
	for bucket, ok := b.First(), true; ok; bucket, ok = b.After(bucket) {
		if !b.Valid(bucket) {
			t.Fatalf("%q not valid", bucket)
		}
		seen = append(seen, bucket)
	}
	if len(seen) != 16 || seen[0] != "user|0" || seen[15] != "user|f" {
		t.Fatalf("buckets %v", seen)
	}
	for _, bad := range []string{"", "user|", "user|g", "user|00", "user|A", "users|0", "0"} {
		if b.Valid(bad) {
			t.Errorf("%q valid", bad)
		}
	}
	// Every memberKey lands in one of them.
	for _, k := range []string{"auth:a", "auth:b", "auth:01HZX"} {
		if pk, _ := directoryKey(k); !b.Valid(pk) {
			t.Errorf("%s → %q", k, pk)
		}
	}
}

func TestParseUserAgent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ua          string
		browser, os string
	}{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome", "Windows"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0", "Edge", "Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Safari", "macOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari", "iOS"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "Chrome", "Android"},
		{"Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0", "Firefox", "Linux"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 YaBrowser/24.6.0.0 Safari/537.36", "Yandex Browser", "Windows"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0", "Opera", "Windows"},
		{"Go-http-client/1.1", "", ""},
		{"", "", ""},
	}
	for _, tc := range cases {
		if d := ParseUserAgent(tc.ua); d.Browser != tc.browser || d.OS != tc.os {
			t.Errorf("%q: %+v, want %s on %s", tc.ua, d, tc.browser, tc.os)
		}
	}
}

func TestInitialDisplayName(t *testing.T) {
	t.Parallel()
	cases := []struct{ hint, email, want string }{
		{"Анна Петрова", "anna@example.com", "Анна Петрова"},
		{"", "anna.petrova@example.com", "anna.petrova"},
		{"  spaced \t\n name ", "", "spaced name"},
		{"\u202eevil", "", "evil"},
		{"", "", fallbackDisplayName},
		{strings.Repeat("я", 100), "", strings.Repeat("я", MaxDisplayName)},
	}
	for _, tc := range cases {
		if got := initialDisplayName(tc.hint, tc.email); got != tc.want {
			t.Errorf("(%q, %q) → %q, want %q", tc.hint, tc.email, got, tc.want)
		}
	}
}
