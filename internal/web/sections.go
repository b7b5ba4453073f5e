package web

import (
	"github.com/harmony/harmony/views/home"
	"github.com/harmony/harmony/views/layout"
)

// section is one product module as the site's navigation sees it.
type section struct {
	slug string
	// inNav puts it in the header; admin is reached from elsewhere.
	inNav bool
}

func (s section) href() string { return "/" + s.slug }

// sections lists every module in navigation order. It is the one place a
// new module's slug is added.
func sections() []section {
	return []section{
		{"groups", true},
		{"prompts", true},
		{"events", true},
		{"forum", true},
		{"chat", true},
		{"people", true},
		{"store", true},
		{"blog", true},
		{"admin", false},
	}
}

// navItems is the header navigation with active marked.
func navItems(active string) []layout.NavItem {
	var items []layout.NavItem
	for _, sec := range sections() {
		if sec.inNav {
			items = append(items, layout.NavItem{Slug: sec.slug, Href: sec.href(), Active: sec.slug == active})
		}
	}
	return items
}

// moduleCards is the home page's module list, with unbuilt modules marked.
func (s *Server) moduleCards() []home.ModuleCard {
	var cards []home.ModuleCard
	for _, sec := range sections() {
		if sec.inNav {
			cards = append(cards, home.ModuleCard{Slug: sec.slug, Href: sec.href(), Soon: !s.built[sec.slug]})
		}
	}
	return cards
}
