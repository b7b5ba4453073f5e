package events

import (
	"net/url"
	"strings"
)

// mapSearch is where "Map" looks a place up: OpenStreetMap's search, which
// needs no account and sets no cookie before the reader chooses to go.
const mapSearch = "https://www.openstreetmap.org/search?query="

// placeLinks are the links an event's place gets on its page: an online
// event's place that is one web address (http or https) is a link to it
// (web); any other place a search for it on a map (mapURL). A place the
// map cannot look up (an empty one) gets neither.
func placeLinks(place string) (mapURL, web string) {
	place = strings.TrimSpace(place)
	if place == "" {
		return "", ""
	}
	if u, err := url.Parse(place); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsAny(place, " \t\n") {
		return "", u.String()
	}
	return mapSearch + url.QueryEscape(place), ""
}
