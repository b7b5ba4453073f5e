package account_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/formrule"
)

// TestPoints: a point is read within range and kept to 0.01°; the
// distance between two is the great circle's; a box around a point
// holds every point within its distance, and gives up on longitudes
// near a pole or across the 180th meridian.
func TestPoints(t *testing.T) {
	london, err := account.ParsePoint(" 51.5074 ", "-0.1278")
	if err != nil || london != (account.Point{Lat: 51.51, Lon: -0.13}) {
		t.Fatalf("London: %v %v", london, err)
	}
	for _, bad := range [][2]string{{"91", "0"}, {"0", "-180.5"}, {"NaN", "0"}, {"", "0"}, {"0", "east"}, {"1e400", "0"}} {
		if _, err := account.ParsePoint(bad[0], bad[1]); !errors.Is(err, account.ErrBadPoint) {
			t.Errorf("ParsePoint(%q, %q): %v", bad[0], bad[1], err)
		}
	}
	moscow := account.Point{Lat: 55.76, Lon: 37.62}
	if km := london.KmTo(moscow); math.Abs(km-2500) > 15 {
		t.Errorf("London to Moscow: %.0f km", km)
	}
	if km := london.KmTo(london); km != 0 {
		t.Errorf("London to itself: %v", km)
	}
	box := london.BoxAround(100)
	for _, p := range []account.Point{{51.51 + 0.89, -0.13}, {51.51, -0.13 + 1.43}, {51.51 - 0.89, -0.13 - 1.43}} {
		if london.KmTo(p) <= 100 && (p.Lat < box.LatMin || p.Lat > box.LatMax || p.Lon < box.LonMin || p.Lon > box.LonMax) {
			t.Errorf("%v is %.0f km away but outside %+v", p, london.KmTo(p), box)
		}
	}
	if box.LonAll || box.LatMax-box.LatMin > 2 {
		t.Errorf("London's 100 km box: %+v", box)
	}
	if b := (account.Point{Lat: 89.5, Lon: 10}).BoxAround(100); !b.LonAll {
		t.Errorf("near the pole: %+v", b)
	}
	if b := (account.Point{Lat: 0, Lon: 179.9}).BoxAround(100); !b.LonAll {
		t.Errorf("across the 180th meridian: %+v", b)
	}
}

// TestCities: every city has an id a form can send once, both names, a
// centre on the earth, and lies where its country is (spot checks of
// known distances); a city not listed is refused; Russian lists sort in
// Russian.
func TestCities(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range account.Cities {
		if seen[c.ID] || !formrule.IsSlug(c.ID, 40) || c.En == "" || c.Ru == "" || len(c.Country) != 2 {
			t.Errorf("city %+v", c)
		}
		seen[c.ID] = true
		if _, err := account.ParsePoint(fmt.Sprint(c.Lat), fmt.Sprint(c.Lon)); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
	for _, d := range []struct {
		a, b string
		km   float64
	}{{"london", "moscow", 2500}, {"moscow", "saint-petersburg", 635}, {"new-york", "los-angeles", 3940}, {"sydney", "melbourne", 714}, {"moscow", "vladivostok", 6430}} {
		a, _ := account.CityOf(d.a)
		b, _ := account.CityOf(d.b)
		if km := a.Point().KmTo(b.Point()); math.Abs(km-d.km) > d.km*0.03 {
			t.Errorf("%s to %s: %.0f km, want about %.0f", d.a, d.b, km, d.km)
		}
	}
	if _, err := account.CityOf("atlantis"); !errors.Is(err, account.ErrNoCity) {
		t.Errorf("atlantis: %v", err)
	}
	ru := account.CitiesIn("ru")
	if ru[0].Ru != "Алматы" || account.CitiesIn("en")[0].En != "Almaty" || len(ru) != len(account.Cities) {
		t.Errorf("first in Russian %q", ru[0].Ru)
	}
}
