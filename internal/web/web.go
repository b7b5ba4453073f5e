// Package web is Harmony's HTTP layer shared by every module: the echo
// router and its middleware chain, buffered templ rendering, htmx helpers,
// the error type and the one error handler, session and CSRF plumbing,
// language choice, and the pages that belong to no module (home, "coming
// soon", health, static files).
//
// Modules plug in through Module and use Render, RenderFragment, Redirect,
// HTMXFrom, Session and the Error constructors from their handlers.
package web

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/static"
)

// Module is a product module that serves its own routes. Until a module is
// passed to New, its section shows a "coming soon" page.
type Module interface {
	// Slug is the module's section: "groups", "forum", ...
	Slug() string
	// Routes registers the module's handlers on e.
	Routes(e *echo.Echo)
}

// Deps is what the web layer needs. Config and Logger are required; the
// rest are optional.
type Deps struct {
	Config *config.Config
	Logger *slog.Logger
	// Version is reported by /api/health.
	Version string
	// UserLanguage returns the signed-in user's language setting, which
	// beats the lang cookie and Accept-Language. The identity module
	// provides it; nil means nobody is signed in.
	UserLanguage func(c echo.Context) (i18n.Lang, bool)
	// SaveLanguage stores the footer switch's choice as the signed-in
	// person's setting (which beats the cookie); nil saves nothing.
	SaveLanguage func(c echo.Context, lang i18n.Lang) error
	// Middleware runs after the session store is attached and before the
	// language is chosen: the identity module's middleware goes here.
	Middleware []echo.MiddlewareFunc
	// Modules are the built modules, in any order.
	Modules []Module
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// BodyTime is how long a request's body may take to arrive once its
	// headers have (0: DefaultBodyTime).
	BodyTime time.Duration
}

// Server is the configured router. It holds no per-request state.
type Server struct {
	echo         *echo.Echo
	cfg          *config.Config
	log          *slog.Logger
	catalog      *i18n.Catalog
	assets       *static.Assets
	sessions     *Sessions
	crossOrigin  *http.CrossOriginProtection
	version      string
	userLanguage func(echo.Context) (i18n.Lang, bool)
	saveLanguage func(echo.Context, i18n.Lang) error
	middleware   []echo.MiddlewareFunc
	bodyLimits   map[string]int64
	bodyTime     time.Duration
	now          func() time.Time
	built        map[string]bool
	homePage     HomeProvider
	badger       UnreadBadger
	adminBadger  AdminBadger
	bannerer     Bannerer
	homeCards    []HomeCarder
	shared       *sharedPages
}

// New builds the router with every middleware and route. It needs no
// storage: modules bring their own.
func New(d Deps) (*Server, error) {
	if d.Config == nil || d.Logger == nil {
		return nil, errors.New("web: Config and Logger are required")
	}
	catalog, err := i18n.New()
	if err != nil {
		return nil, err
	}
	sessions, err := NewSessions(d.Config)
	if err != nil {
		return nil, err
	}
	crossOrigin := http.NewCrossOriginProtection()
	// Behind a proxy that rewrites Host, the public origin still matches.
	if err := crossOrigin.AddTrustedOrigin(d.Config.BaseURL.Scheme + "://" + d.Config.BaseURL.Host); err != nil {
		return nil, fmt.Errorf("web: BASE_URL: %w", err)
	}
	s := &Server{
		echo:         echo.New(),
		cfg:          d.Config,
		log:          d.Logger,
		catalog:      catalog,
		assets:       static.Embedded(),
		sessions:     sessions,
		crossOrigin:  crossOrigin,
		version:      d.Version,
		userLanguage: d.UserLanguage,
		saveLanguage: d.SaveLanguage,
		middleware:   d.Middleware,
		bodyLimits:   routeBodyLimits(d.Modules),
		now:          d.Now,
		bodyTime:     cmp.Or(d.BodyTime, DefaultBodyTime),
		built:        map[string]bool{},
		homePage:     firstModule[HomeProvider](d.Modules),
		badger:       firstModule[UnreadBadger](d.Modules),
		adminBadger:  firstModule[AdminBadger](d.Modules),
		bannerer:     firstModule[Bannerer](d.Modules),
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.shared = newSharedPages(s.now)
	for _, m := range d.Modules {
		s.built[m.Slug()] = true
		if h, ok := m.(HomeCarder); ok {
			s.homeCards = append(s.homeCards, h)
		}
	}

	e := s.echo
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = clientIP(d.Config.TrustedProxies)
	s.use()
	s.routes()
	for _, m := range d.Modules {
		m.Routes(e)
	}
	return s, nil
}

// use installs the middleware chain. Order matters:
//   - request id, storage counter and access log come first, so every
//     response (errors included) is counted, logged and carries the id;
//   - recover sits inside the access log, so a panic becomes a logged 500;
//   - the session store and language come before anything that can fail,
//     so error pages are in the user's language and carry a CSRF token;
//   - Deps.Middleware (the identity middleware) comes after sessions and
//     before language, so a signed-in user's setting wins;
//   - shared pages are served after language (their key) and before
//     compression (they are kept compressed).
func (s *Server) use() {
	s.echo.Use(
		s.assignRequestID,
		s.countStorageOps,
		s.logAccess,
		s.recoverPanics,
		s.setSecureHeaders,
		parseHTMX,
		s.attachSessions,
	)
	s.echo.Use(s.middleware...)
	if s.badger != nil || s.adminBadger != nil || s.bannerer != nil {
		s.echo.Use(s.offerPageParts)
	}
	s.echo.Use(
		s.chooseLanguage,
		s.limitBody,
		s.serveShared,
		compress(),
		s.requireCSRF,
	)
}

// Handler is the server's http.Handler. A HEAD request is answered by the
// GET route, as load balancers and link checkers expect; net/http drops
// the body because the connection's own request still says HEAD.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			r = r.Clone(r.Context())
			r.Method = http.MethodGet
		}
		s.echo.ServeHTTP(w, r)
	})
}

// Echo exposes the router, for route-matrix tests and for modules that
// need to inspect routes.
func (s *Server) Echo() *echo.Echo { return s.echo }
