// Package viewer carries who is looking at a page from the identity
// middleware to the templates, without the views importing internal/auth
// (which would be an import cycle through internal/web).
package viewer

import "context"

// Viewer is what the page frame shows about the person browsing.
type Viewer struct {
	SignedIn bool
	Guest    bool
	Admin    bool
	Name     string
	// AvatarURL is the profile photo's URL, empty for none.
	AvatarURL string
	// ZoneUnset is an account whose profile names no time zone: the page
	// sends the browser's (static/js/zone.js).
	ZoneUnset bool
}

type key struct{}

// With returns a context carrying v.
func With(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, key{}, v)
}

// From returns the context's viewer; the zero Viewer is an anonymous visitor.
func From(ctx context.Context) Viewer {
	v, _ := ctx.Value(key{}).(Viewer)
	return v
}
