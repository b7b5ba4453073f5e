package web

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Feed is an RSS 2.0 channel: a list page as a feed readers follow (the
// forum's latest topics; the blog's posts).
type Feed struct {
	Title       string
	Link        string // absolute
	Description string
	Items       []FeedItem
}

// FeedItem is one entry of a Feed.
type FeedItem struct {
	Title       string
	Link        string // absolute; also the item's GUID
	Description string // plain text
	Published   time.Time
}

type rssDoc struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title       string    `xml:"title"`
	Link        string    `xml:"link"`
	Description string    `xml:"description"`
	Items       []rssItem `xml:"item"`
}

type rssItem struct {
	Title       string  `xml:"title"`
	Link        string  `xml:"link"`
	GUID        rssGUID `xml:"guid"`
	Description string  `xml:"description,omitempty"`
	PubDate     string  `xml:"pubDate"`
}

type rssGUID struct {
	Value       string `xml:",chardata"`
	IsPermaLink bool   `xml:"isPermaLink,attr"`
}

// ServeFeed answers with f as RSS 2.0 (XML escaped by the encoder).
func ServeFeed(c echo.Context, f Feed) error {
	doc := rssDoc{Version: "2.0", Channel: rssChannel{Title: f.Title, Link: f.Link, Description: f.Description}}
	for _, it := range f.Items {
		doc.Channel.Items = append(doc.Channel.Items, rssItem{
			Title: it.Title, Link: it.Link, GUID: rssGUID{Value: it.Link, IsPermaLink: true}, Description: it.Description,
			PubDate: it.Published.UTC().Format(time.RFC1123Z),
		})
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	variesByLanguage(c.Response().Header())
	return c.Blob(http.StatusOK, "application/rss+xml; charset=utf-8", b.Bytes())
}
