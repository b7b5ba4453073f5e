package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"time"
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
type SMTP struct {
	host, addr  string
	implicitTLS bool
	user, pass  string
	auth        bool
	from        string

	// dial and tlsConfig are replaced by tests, which reach a fake server
	// under a public-looking name.
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	tlsConfig *tls.Config
	now       func() time.Time
}

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
	if a, err := mail.ParseAddress(s.from); err != nil || a.Address != s.from {
		return nil, fmt.Errorf("mail: sender %q is not one plain address (set ?from= in SMTP_URL)", s.from)
	}
	var d net.Dialer
	s.dial = d.DialContext
	return s, nil
}

// Send delivers m in one SMTP session.
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
	c, err := s.connect(ctx)
	if err != nil {
		return fmt.Errorf("mail: smtp %s: %w", s.addr, err)
	}
	defer c.Close()
	if err := s.deliver(c, to.Address, body); err != nil {
		return fmt.Errorf("mail: smtp %s: %w", s.addr, err)
	}
	return nil
}

// connect dials, greets, secures the connection as the URL asks, and
// authenticates.
func (s *SMTP) connect(ctx context.Context) (*smtp.Client, error) {
	conn, err := s.dial(ctx, "tcp", s.addr)
	if err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline) // net/smtp has no context: the deadline stands in
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
		if err := c.Auth(smtp.PlainAuth("", s.user, s.pass, s.host)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func (s *SMTP) deliver(c *smtp.Client, to string, body []byte) error {
	if err := c.Mail(s.from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
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
