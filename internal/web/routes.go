package web

// routes registers the pages that belong to no module, and a "coming soon"
// page for each module not built yet.
func (s *Server) routes() {
	e := s.echo
	e.GET("/", s.home)
	e.GET("/api/health", s.health)
	e.POST("/lang", s.switchLanguage)
	e.GET("/static/*", s.serveStatic)
	e.GET("/favicon.ico", s.favicon)
	e.GET("/manifest.webmanifest", s.manifest)
	for _, sec := range sections() {
		if !s.built[sec.slug] {
			e.GET(sec.href(), s.comingSoon(sec.slug))
		}
	}
}
