package account

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// A point: where someone said they are, for People's distances (Hinge's
// "Maximum distance"). The browser's location API gives it, once the
// person asks for it and allows it; it is kept to 0.01° (about a
// kilometre), shown to nobody, and used only to say how far apart two
// people are.

// Point is a place on the earth, in degrees.
type Point struct{ Lat, Lon float64 }

// pointPlaces is the precision a point is kept at (0.01°).
const pointPlaces = 100

// ErrBadPoint is a latitude or longitude that is not one (400).
var ErrBadPoint = fault.New(http.StatusBadRequest, "people.error.point", "account: not a place on the earth")

// ParsePoint reads a latitude and a longitude as a form sends them:
// numbers in range (-90…90, -180…180), rounded to 0.01°.
func ParsePoint(lat, lon string) (Point, error) {
	la, err1 := strconv.ParseFloat(strings.TrimSpace(lat), 64)
	lo, err2 := strconv.ParseFloat(strings.TrimSpace(lon), 64)
	if err1 != nil || err2 != nil || math.IsNaN(la) || math.IsNaN(lo) || la < -90 || la > 90 || lo < -180 || lo > 180 {
		return Point{}, ErrBadPoint
	}
	return Point{Lat: round(la), Lon: round(lo)}, nil
}

func round(x float64) float64 { return math.Round(x*pointPlaces) / pointPlaces }

// pointOf is the point stored as lat and lon, nil when either is missing.
func pointOf(lat, lon *float64) *Point {
	if lat == nil || lon == nil {
		return nil
	}
	return &Point{Lat: *lat, Lon: *lon}
}

// samePoint reports whether a and b are the same point, or both none.
func samePoint(a, b *Point) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// earthKm is the earth's mean radius.
const earthKm = 6371.0

// KmTo is the great-circle distance from p to q, in kilometres.
func (p Point) KmTo(q Point) float64 {
	rad := math.Pi / 180
	dLat, dLon := (q.Lat-p.Lat)*rad, (q.Lon-p.Lon)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(p.Lat*rad)*math.Cos(q.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthKm * math.Asin(math.Min(1, math.Sqrt(h)))
}

// Box is the latitude and longitude ranges that hold every point within
// km of p: a coarse first cut, which the table's filters can make, before
// KmTo. LonAll: near a pole or across the 180th meridian the longitudes
// are not cut.
type Box struct {
	LatMin, LatMax, LonMin, LonMax float64
	LonAll                         bool
}

// BoxAround is the Box of the points within km of p.
func (p Point) BoxAround(km float64) Box {
	dLat := km / earthKm * 180 / math.Pi
	b := Box{LatMin: p.Lat - dLat, LatMax: p.Lat + dLat}
	cos := math.Cos(p.Lat * math.Pi / 180)
	if b.LatMin <= -89 || b.LatMax >= 89 || cos < 0.01 {
		b.LonAll = true
		return b
	}
	dLon := dLat / cos
	b.LonMin, b.LonMax = p.Lon-dLon, p.Lon+dLon
	if b.LonMin < -180 || b.LonMax > 180 {
		b.LonAll = true
	}
	return b
}

// SetPoint keeps where memberKey said they are (nil forgets it).
func (s *Service) SetPoint(ctx context.Context, memberKey string, at *Point) (ProfileRow, error) {
	return s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if samePoint(pointOf(p.Lat, p.Lon), at) {
			return storage.ErrNoChange
		}
		p.Lat, p.Lon = nil, nil
		if at != nil {
			lat, lon := at.Lat, at.Lon
			p.Lat, p.Lon = &lat, &lon
		}
		return nil
	})
}
