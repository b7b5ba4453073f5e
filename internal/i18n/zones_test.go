package i18n

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZoneNamesInTheReadersLanguage(t *testing.T) {
	c := newCatalog(t)
	en := WithLocalizer(context.Background(), c.For(EN))
	ru := WithLocalizer(context.Background(), c.For(RU))
	winter := time.Date(2030, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2030, 7, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		zone   string
		at     time.Time
		en, ru string
	}{
		{"Europe/Moscow", winter, "Moscow, UTC+3", "Москва, UTC+3"},
		{"America/New_York", winter, "New York, UTC−5", "Нью-Йорк, UTC−5"},
		{"America/New_York", summer, "New York, UTC−4", "Нью-Йорк, UTC−4"},
		{"Asia/Kolkata", summer, "Kolkata, UTC+5:30", "Калькутта, UTC+5:30"},
		{"America/Argentina/Buenos_Aires", summer, "Buenos Aires, UTC−3", "Buenos Aires, UTC−3"},
		{"UTC", summer, "UTC", "UTC"},
		{"", summer, "UTC", "UTC"},
		{"Mars/Olympus", summer, "Mars/Olympus", "Mars/Olympus"},
	} {
		if got := ZoneName(en, tc.zone, tc.at); got != tc.en {
			t.Errorf("ZoneName(en, %s) = %q, want %q", tc.zone, got, tc.en)
		}
		if got := ZoneName(ru, tc.zone, tc.at); got != tc.ru {
			t.Errorf("ZoneName(ru, %s) = %q, want %q", tc.zone, got, tc.ru)
		}
	}
}

// Every zone the pickers offer has a name in both languages.
func TestThePickersZonesAreNamed(t *testing.T) {
	raw, err := os.ReadFile("../app/account/timezones.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range strings.Fields(string(raw)) {
		if _, ok := zoneNames[z]; !ok && z != "UTC" {
			t.Errorf("the picker's %s has no name", z)
		}
		if _, ok := LoadZone(z); !ok {
			t.Errorf("the picker's %s is not a zone", z)
		}
	}
}
