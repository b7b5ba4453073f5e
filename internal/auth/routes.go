package auth

import "github.com/labstack/echo/v4"

// Slug names the module; auth has no section of its own in the navigation.
func (s *Service) Slug() string { return "auth" }

// Routes registers sign-in, sign-out and, in development with the
// in-memory mailbox, /dev/mailbox.
func (s *Service) Routes(e *echo.Echo) {
	e.GET("/signin", s.showSignIn)
	e.POST("/signin/code", s.sendCode)
	e.GET("/signin/code", s.showCodeForm)
	e.POST("/signin/code/verify", s.verifyCode)
	e.POST("/signout", s.signOut)
	s.emailLinkRoutes(e)
	if s.mailbox != nil {
		e.GET("/dev/mailbox", s.showMailbox)
	}
	if s.oidc != nil {
		// OIDC hook: /auth/oidc/start and /auth/oidc/callback (oidc*.go).
		s.oidcRoutes(e)
	}
}
