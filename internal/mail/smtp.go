package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wneessen/go-mail/smtp"
)

// SMTP sends mail through one SMTP server, configured by a URL:
//
//	smtp://user:pass@host:587   STARTTLS when the server offers it; with
//	                            credentials it is required unless the host
//	                            is loopback (a local catcher such as maildev)
//	smtps://user:pass@host:465  TLS from the first byte
//	smtp://127.0.0.1:1025       plain, for a local catcher
//
// An optional ?from=address sets the sender; the default is no-reply at the
// site's host. Ports default to 587 (smtp, submission) and 465 (smtps).
// ?auth= names the mechanism: plain, login, cram-md5, scram-sha-256 or
// xoauth2 (the password is then the OAuth access token); without it the
// strongest one the server offers is used.
//
// The protocol client is go-mail's maintained fork of net/smtp. One
// connection serves a burst of messages (the queue's drain) and is closed
// after idleTimeout without mail.
type SMTP struct {
	host, addr  string
	implicitTLS bool
	user, pass  string
	auth        bool
	mechanism   string // from ?auth=, upper case; "" = the server's best
	from        string

	// dial and tlsConfig are replaced by tests, which reach a fake server
	// under a public-looking name.
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	tlsConfig *tls.Config
	now       func() time.Time

	mu   sync.Mutex // one message at a time on the one connection
	conn *smtp.Client
	idle *time.Timer
}

// idleTimeout is how long an unused connection stays open.
const idleTimeout = 30 * time.Second

// mechanisms are the ?auth= values, strongest first: without ?auth= the
// first one the server offers is used. XOAUTH2 is used only when asked
// for, since its password is a token.
var mechanisms = []string{"SCRAM-SHA-256", "CRAM-MD5", "PLAIN", "LOGIN", "XOAUTH2"}

// sendTimeout bounds one delivery when the caller's context has no deadline.
const sendTimeout = 30 * time.Second

// NewSMTP parses an SMTP URL. Errors never repeat the URL: it holds a
// password.
func NewSMTP(rawURL, defaultFrom string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("mail: SMTP_URL is not a URL")
	}
	s := &SMTP{host: u.Hostname(), from: defaultFrom, now: time.Now}
	port := u.Port()
	switch u.Scheme {
	case "smtp":
		if port == "" {
			port = "587"
		}
	case "smtps":
		s.implicitTLS = true
		if port == "" {
			port = "465"
		}
	default:
		return nil, fmt.Errorf("mail: SMTP_URL scheme %q: want smtp or smtps", u.Scheme)
	}
	if s.host == "" {
		return nil, errors.New("mail: SMTP_URL has no host")
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
		s.auth = s.user != ""
	}
	if f := u.Query().Get("from"); f != "" {
		s.from = f
	}
	if m := strings.ToUpper(u.Query().Get("auth")); m != "" {
		if !slices.Contains(mechanisms, m) {
			return nil, fmt.Errorf("mail: SMTP_URL auth=%q: want one of %s", strings.ToLower(m), strings.ToLower(strings.Join(mechanisms, ", ")))
		}
		s.mechanism = m
	}
	if a, err := mail.ParseAddress(s.from); err != nil || a.Address != s.from {
		return nil, fmt.Errorf("mail: sender %q is not one plain address (set ?from= in SMTP_URL)", s.from)
	}
	var d net.Dialer
	s.dial = d.DialContext
	return s, nil
}

// Send delivers m, on the open connection when there is one.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	body, err := compose(s.from, m, s.now())
	if err != nil {
		return err
	}
	to, _ := recipient(m.To) // compose checked it
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sendTimeout)
		defer cancel()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
	}
	// A kept connection the server has dropped fails its RSET; one fresh
	// connection is then tried.
	if s.conn != nil {
		if err := s.prepare(ctx, s.conn); err != nil {
			s.hangUp()
		}
	}
	if s.conn == nil {
		if s.conn, err = s.connect(ctx); err != nil {
			return fmt.Errorf("mail: smtp %s: %w", s.addr, err)
		}
	}
	if err := s.deliver(s.conn, to.Address, body); err != nil {
		s.hangUp()
		return fmt.Errorf("mail: smtp %s: %w", s.addr, err)
	}
	s.idle = time.AfterFunc(idleTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.quit()
	})
	return nil
}

// Close ends the kept connection, if any.
func (s *SMTP) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
	}
	s.quit()
	return nil
}

// quit says goodbye on the kept connection (s.mu held).
func (s *SMTP) quit() {
	if s.conn != nil {
		s.conn.Quit()
		s.hangUp()
	}
}

// hangUp drops the kept connection (s.mu held).
func (s *SMTP) hangUp() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// prepare readies a kept connection for the next message: the request's
// deadline, and RSET, which also proves the server is still there.
func (s *SMTP) prepare(ctx context.Context, c *smtp.Client) error {
	deadline, _ := ctx.Deadline()
	if err := c.UpdateDeadline(time.Until(deadline)); err != nil {
		return err
	}
	return c.Reset()
}

// connect dials, greets, secures the connection as the URL asks, and
// authenticates.
func (s *SMTP) connect(ctx context.Context) (*smtp.Client, error) {
	conn, err := s.dial(ctx, "tcp", s.addr)
	if err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline) // the SMTP client has no context: the deadline stands in
	if s.implicitTLS {
		tc := tls.Client(conn, s.tls())
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if err := c.Hello("localhost"); err != nil {
		c.Close()
		return nil, err
	}
	if !s.implicitTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(s.tls()); err != nil {
				c.Close()
				return nil, err
			}
		} else if s.auth && !isLoopback(s.host) {
			c.Close()
			return nil, errors.New("the server offers no STARTTLS; refusing to send credentials in the clear (use smtps:// or a server with STARTTLS)")
		}
	}
	if s.auth {
		if err := s.authenticate(c); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// authenticate signs in with the mechanism the URL names, or the
// strongest the server offers.
func (s *SMTP) authenticate(c *smtp.Client) error {
	_, offered := c.Extension("AUTH")
	offers := strings.Fields(strings.ToUpper(offered))
	mech := s.mechanism
	if mech == "" {
		for _, m := range mechanisms[:len(mechanisms)-1] { // never XOAUTH2 unasked
			if slices.Contains(offers, m) {
				mech = m
				break
			}
		}
		if mech == "" {
			return fmt.Errorf("the server offers no sign-in mechanism Harmony speaks (it offers %q)", offered)
		}
	}
	clear := isLoopback(s.host) // connect refused clear text elsewhere
	var a smtp.Auth
	switch mech {
	case "SCRAM-SHA-256":
		a = smtp.ScramSHA256Auth(s.user, s.pass)
	case "CRAM-MD5":
		a = smtp.CRAMMD5Auth(s.user, s.pass)
	case "PLAIN":
		a = smtp.PlainAuth("", s.user, s.pass, s.host, clear)
	case "LOGIN":
		a = smtp.LoginAuth(s.user, s.pass, s.host, clear)
	case "XOAUTH2":
		a = smtp.XOAuth2Auth(s.user, s.pass)
	}
	if err := c.Auth(a); err != nil {
		return fmt.Errorf("sign-in (%s) refused: %w", mech, err)
	}
	return nil
}

// deliver sends one message on an open, signed-in connection. The
// client sends the paths as given, so they carry their angle brackets.
func (s *SMTP) deliver(c *smtp.Client, to string, body []byte) error {
	if err := c.Mail("<" + s.from + ">"); err != nil {
		return err
	}
	if err := c.Rcpt("<" + to + ">"); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Close()
}

func (s *SMTP) tls() *tls.Config {
	if s.tlsConfig != nil {
		cfg := s.tlsConfig.Clone()
		cfg.ServerName = s.host
		return cfg
	}
	return &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
}

// isLoopback reports a host that never leaves the machine, where a plain
// connection exposes nothing.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
