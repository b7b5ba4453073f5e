package account

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/fault"
)

// Cities are the places someone may choose as where they are, for
// distances in People, when their browser does not give its location
// (no JavaScript, or the prompt refused): large cities where the app's
// people are, their centres to about 0.1°, which is as close as a
// distance between cities needs. A city chosen is kept as its point, like
// a shared location. The table is cities.tsv.
var Cities = mustCities(citiesTSV)

//go:embed cities.tsv
var citiesTSV string

// mustCities reads the cities' table: a line a city, its fields
// separated by tabs (City's, in order), "#" lines aside.
func mustCities(tsv string) []City {
	var out []City
	for n, line := range strings.Split(strings.TrimSpace(tsv), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			panic(fmt.Sprintf("account: cities.tsv line %d: %d fields", n+1, len(f)))
		}
		lat, err1 := strconv.ParseFloat(f[4], 64)
		lon, err2 := strconv.ParseFloat(f[5], 64)
		if err := errors.Join(err1, err2); err != nil {
			panic(fmt.Sprintf("account: cities.tsv line %d: %v", n+1, err))
		}
		out = append(out, City{ID: f[0], En: f[1], Ru: f[2], Country: f[3], Lat: lat, Lon: lon})
	}
	return out
}

// City is a place in Cities: its id (what a form sends), its name in
// English and in Russian, its country (ISO 3166 code) and its centre.
type City struct {
	ID, En, Ru, Country string
	Lat, Lon            float64
}

// Point is the city's centre.
func (c City) Point() Point { return Point{Lat: c.Lat, Lon: c.Lon} }

// Name is the city's name in lang ("ru", else English).
func (c City) Name(lang string) string {
	if lang == "ru" {
		return c.Ru
	}
	return c.En
}

// ErrNoCity is a city that is not in Cities (400).
var ErrNoCity = fault.New(http.StatusBadRequest, "people.error.city", "account: no such city")

// CityOf is the city with id, ErrNoCity when there is none.
func CityOf(id string) (City, error) {
	if i := slices.IndexFunc(Cities, func(c City) bool { return c.ID == id }); i >= 0 {
		return Cities[i], nil
	}
	return City{}, ErrNoCity
}

// CitiesIn are the cities in lang's alphabetical order of their names.
func CitiesIn(lang string) []City {
	out := slices.Clone(Cities)
	slices.SortFunc(out, func(a, b City) int { return cmp.Compare(a.Name(lang), b.Name(lang)) })
	return out
}
