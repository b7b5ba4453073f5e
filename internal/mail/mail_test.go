package mail

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/config"
)

var sendTime = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

const (
	ruSubject = "Код для входа в Harmony: 123456"
	ruText    = "Здравствуйте!\nВаш код: 123456. Он действует 10 минут.\n"
)

func TestComposeEncodesRussianSubjectAndBodies(t *testing.T) {
	raw, err := compose("no-reply@harmony.example", Message{
		To: "anna@example.org", Subject: ruSubject, Text: ruText, HTML: "<p>Ваш код: <b>123456</b></p>",
	}, sendTime)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("a line ends without CR")
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Errorf("line longer than RFC 5322 allows: %d", len(line))
		}
		for _, r := range line {
			if r > 127 {
				t.Fatalf("raw 8-bit text on the wire: %q", line)
			}
		}
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != ruSubject {
		t.Errorf("Subject decodes to %q (%v)", subject, err)
	}
	for name, want := range map[string]string{
		"From":           `"Harmony" <no-reply@harmony.example>`,
		"To":             "<anna@example.org>",
		"Date":           "Fri, 17 May 2030 09:30:00 +0000",
		"MIME-Version":   "1.0",
		"Auto-Submitted": "auto-generated",
	} {
		if got := msg.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if id := msg.Header.Get("Message-ID"); !strings.HasSuffix(id, "@harmony.example>") {
		t.Errorf("Message-ID %q", id)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/alternative" {
		t.Fatalf("Content-Type %q", msg.Header.Get("Content-Type"))
	}
	parts := multipart.NewReader(msg.Body, params["boundary"])
	var got []string
	for {
		p, err := parts.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Header.Get("Content-Transfer-Encoding") != "quoted-printable" {
			t.Errorf("part %q is not quoted-printable", p.Header.Get("Content-Type"))
		}
		body, _ := io.ReadAll(quotedprintable.NewReader(p))
		got = append(got, p.Header.Get("Content-Type")+"|"+string(body))
	}
	want := []string{
		"text/plain; charset=utf-8|" + strings.ReplaceAll(ruText, "\n", "\r\n"),
		"text/html; charset=utf-8|<p>Ваш код: <b>123456</b></p>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts:\n%q\nwant\n%q", got, want)
	}
}

func TestComposePlainTextOnly(t *testing.T) {
	raw, err := compose("no-reply@harmony.example", Message{To: "a@example.org", Subject: "Hi", Text: "Hello"}, sendTime)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := mail.ReadMessage(bytes.NewReader(raw))
	if ct := msg.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if msg.Header.Get("Subject") != "Hi" {
		t.Errorf("ASCII subject was encoded: %q", msg.Header.Get("Subject"))
	}
}

func TestComposeRefusesHeaderInjection(t *testing.T) {
	for name, m := range map[string]Message{
		"subject":      {To: "a@example.org", Subject: "Hi\r\nBcc: victim@example.org", Text: "x"},
		"recipient":    {To: "a@example.org\r\nBcc: victim@example.org", Subject: "Hi", Text: "x"},
		"two":          {To: "a@example.org, b@example.org", Subject: "Hi", Text: "x"},
		"display name": {To: "Eve <a@example.org>", Subject: "Hi", Text: "x"},
		"empty body":   {To: "a@example.org", Subject: "Hi"},
	} {
		if _, err := compose("no-reply@harmony.example", m, sendTime); !errors.Is(err, ErrBadMessage) {
			t.Errorf("%s: err %v, want ErrBadMessage", name, err)
		}
	}
}

func TestNewSMTPParsesURLsWithoutLeakingThePassword(t *testing.T) {
	s, err := NewSMTP("smtp://user:s3cret@mail.example.org?from=harmony@example.org", "no-reply@example.org")
	if err != nil {
		t.Fatal(err)
	}
	if s.addr != "mail.example.org:587" || s.implicitTLS || s.user != "user" || s.pass != "s3cret" || s.from != "harmony@example.org" {
		t.Errorf("parsed %+v", s)
	}
	if s, err := NewSMTP("smtps://mail.example.org", "no-reply@example.org"); err != nil || s.addr != "mail.example.org:465" || !s.implicitTLS {
		t.Errorf("smtps: %+v, %v", s, err)
	}
	for _, bad := range []string{"http://user:s3cret@mail.example.org", "smtp://user:s3cret@:25", "smtp://user:s3cret@mail.example.org?from=not-an-address", "smtp://user:s3cret@%zz"} {
		_, err := NewSMTP(bad, "no-reply@example.org")
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: error leaks the password: %v", bad, err)
		}
	}
}

func TestSMTPPlainToLoopbackCatcher(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{})
	s, err := NewSMTP("smtp://"+srv.addr(), "no-reply@harmony.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: ruSubject, Text: ruText}); err != nil {
		t.Fatal(err)
	}
	got := srv.only(t)
	if got.from != "no-reply@harmony.example" || got.to != "anna@example.org" || got.auth != "" || got.tls {
		t.Errorf("session %+v", got)
	}
	msg, err := mail.ReadMessage(strings.NewReader(got.data))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if !strings.Contains(string(body), "Ваш код: 123456") {
		t.Errorf("body %q", body)
	}
}

func TestSMTPStartTLSWithCredentials(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{startTLS: true})
	s := srv.client(t, "smtp://user:pa%20ss@mail.example.org:587")
	if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "123456"}); err != nil {
		t.Fatal(err)
	}
	got := srv.only(t)
	if !got.tls || got.auth != "\x00user\x00pa ss" {
		t.Errorf("tls %v, auth %q", got.tls, got.auth)
	}
}

func TestSMTPRefusesCredentialsWithoutTLS(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{})
	s := srv.client(t, "smtp://user:s3cret@mail.example.org:587")
	err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "123456"})
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("err %v, want a refusal", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Error("error leaks the password")
	}
	// The refused session is recorded when the client hangs up.
	got := srv.waitFor(t, 1)
	if got[0].auth != "" || got[0].data != "" || got[0].tls {
		t.Errorf("credentials or mail went out in the clear: %+v", got[0])
	}
}

func TestSMTPCredentialsToLoopbackWithoutTLS(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{})
	s, err := NewSMTP("smtp://user:pass@"+srv.addr(), "no-reply@harmony.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "123456"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.only(t); got.auth != "\x00user\x00pass" {
		t.Errorf("auth %q", got.auth)
	}
}

func TestSMTPSImplicitTLS(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{implicitTLS: true})
	s := srv.client(t, "smtps://user:pass@mail.example.org")
	if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "123456"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.only(t); !got.tls || got.auth != "\x00user\x00pass" {
		t.Errorf("session %+v", got)
	}
}

func TestSMTPRejectsAnUntrustedCertificate(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{startTLS: true})
	s := srv.client(t, "smtp://user:pass@mail.example.org")
	s.tlsConfig = nil // system roots do not know the fake's certificate
	if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "123456"}); err == nil {
		t.Fatal("sent over TLS to an unknown certificate")
	}
}

// A burst of mail (the queue's drain) goes out on one connection.
func TestSMTPReusesTheConnection(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{startTLS: true})
	s := srv.client(t, "smtp://user:pass@mail.example.org")
	t.Cleanup(func() { s.Close() })
	for _, to := range []string{"anna@example.org", "boris@example.org", "vera@example.org"} {
		if err := s.Send(context.Background(), Message{To: to, Subject: "Code", Text: "123456"}); err != nil {
			t.Fatal(err)
		}
	}
	got := srv.waitFor(t, 3)
	if len(got) != 3 || got[0].conn != 1 || got[2].conn != 1 || got[2].to != "vera@example.org" {
		t.Errorf("deliveries %+v, want three on connection 1", got)
	}
}

// A kept connection the server dropped is replaced, and the message still
// goes out.
func TestSMTPRedialsADroppedConnection(t *testing.T) {
	srv := startFakeSMTP(t, fakeOptions{})
	s, err := NewSMTP("smtp://"+srv.addr(), "no-reply@harmony.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Send(ctx, Message{To: "anna@example.org", Subject: "1", Text: "one"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.conn.Close() // as if the server timed the idle connection out
	s.mu.Unlock()
	if err := s.Send(ctx, Message{To: "anna@example.org", Subject: "2", Text: "two"}); err != nil {
		t.Fatalf("after the drop: %v", err)
	}
	if got := srv.waitFor(t, 2); got[1].conn != 2 {
		t.Errorf("second delivery on connection %d, want a new one", got[1].conn)
	}
}

// A server that offers only LOGIN (Office 365 and many hosts) gets LOGIN;
// XOAUTH2 is used when the URL asks for it, with the token as password.
func TestSMTPAuthMechanisms(t *testing.T) {
	for _, tc := range []struct {
		name, offers, url, want string
	}{
		{"login only", "LOGIN", "smtp://user:pass@mail.example.org", "login:user:pass"},
		{"plain preferred to login", "LOGIN PLAIN", "smtp://user:pass@mail.example.org", "\x00user\x00pass"},
		{"xoauth2 asked for", "PLAIN XOAUTH2", "smtp://anna%40example.org:ya29.token@mail.example.org?auth=xoauth2", "user=anna@example.org\x01auth=Bearer ya29.token\x01\x01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFakeSMTP(t, fakeOptions{startTLS: true, auth: tc.offers})
			s := srv.client(t, tc.url)
			t.Cleanup(func() { s.Close() })
			if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "123456"}); err != nil {
				t.Fatal(err)
			}
			if got := srv.waitFor(t, 1)[0].auth; got != tc.want {
				t.Errorf("auth %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := NewSMTP("smtp://u:p@mail.example.org?auth=kerberos", "no-reply@harmony.example"); err == nil {
		t.Error("an unknown ?auth= was accepted")
	}
	srv := startFakeSMTP(t, fakeOptions{startTLS: true, auth: "GSSAPI"})
	s := srv.client(t, "smtp://user:pass@mail.example.org")
	if err := s.Send(context.Background(), Message{To: "anna@example.org", Subject: "Code", Text: "1"}); err == nil || !strings.Contains(err.Error(), "GSSAPI") {
		t.Errorf("no common mechanism: %v", err)
	}
}

func TestDevMailboxKeepsTheNewest(t *testing.T) {
	var logs bytes.Buffer
	d := NewDevMailbox(slog.New(slog.NewTextHandler(&logs, nil)), 2)
	for _, subject := range []string{"one", "two", "three"} {
		if err := d.Send(context.Background(), Message{To: "a@example.org", Subject: subject, Text: "code 123456"}); err != nil {
			t.Fatal(err)
		}
	}
	got := d.Recent()
	if len(got) != 2 || got[0].Subject != "three" || got[1].Subject != "two" {
		t.Errorf("Recent = %+v", got)
	}
	if !strings.Contains(logs.String(), "code 123456") {
		t.Error("the code is not in the log")
	}
	if err := d.Send(context.Background(), Message{To: "bad\r\nBcc: x@y.z", Subject: "x", Text: "x"}); !errors.Is(err, ErrBadMessage) {
		t.Errorf("bad message: %v", err)
	}
}

func TestFromConfig(t *testing.T) {
	load := func(env map[string]string) *config.Config {
		env["SESSION_KEYS"] = strings.Repeat("11", 32)
		env["CURSOR_KEY"] = strings.Repeat("22", 32)
		env["DATA_DIR"] = t.TempDir()
		cfg, err := config.Load(nil, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	log := slog.New(slog.DiscardHandler)
	if s, err := FromConfig(load(map[string]string{}), log); err != nil {
		t.Fatal(err)
	} else if _, ok := s.(*DevMailbox); !ok {
		t.Errorf("development without SMTP_URL: %T", s)
	}
	if s, err := FromConfig(load(map[string]string{"ENV": "production", "BASE_URL": "https://harmony.example"}), log); err != nil || s != nil {
		t.Errorf("production without SMTP_URL: %v, %v; want no sender", s, err)
	}
	s, err := FromConfig(load(map[string]string{"ENV": "production", "BASE_URL": "https://harmony.example", "SMTP_URL": "smtp://mail.example.org"}), log)
	if err != nil {
		t.Fatal(err)
	}
	if smtpSender, ok := s.(*SMTP); !ok || smtpSender.from != "no-reply@harmony.example" {
		t.Errorf("with SMTP_URL: %#v", s)
	}
}

// A fake SMTP server that speaks just enough of the protocol for the
// client: EHLO, STARTTLS, AUTH (PLAIN, LOGIN, XOAUTH2), MAIL, RCPT, DATA,
// RSET, QUIT. Each delivery is recorded before its DATA is answered, and a
// connection that delivered nothing is recorded when it closes.

type fakeOptions struct {
	startTLS, implicitTLS bool
	// auth is the AUTH line's mechanisms; "" means PLAIN.
	auth string
}

type fakeSession struct {
	from, to, auth, data string
	tls                  bool
	conn                 int // which connection (1, 2, ...)
}

type fakeSMTP struct {
	ln   net.Listener
	opts fakeOptions
	cert tls.Certificate
	pool *x509.CertPool

	mu       sync.Mutex
	sessions []fakeSession
	conns    int
}

func startFakeSMTP(t *testing.T, opts fakeOptions) *fakeSMTP {
	t.Helper()
	if opts.auth == "" {
		opts.auth = "PLAIN"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fakeSMTP{ln: ln, opts: opts}
	srv.cert, srv.pool = testCertificate(t)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			srv.mu.Lock()
			srv.conns++
			n := srv.conns
			srv.mu.Unlock()
			go srv.serve(conn, n)
		}
	}()
	return srv
}

func (f *fakeSMTP) addr() string { return f.ln.Addr().String() }

// client is an SMTP sender for rawURL whose connections reach the fake
// whatever the URL's host, trusting the fake's certificate.
func (f *fakeSMTP) client(t *testing.T, rawURL string) *SMTP {
	t.Helper()
	s, err := NewSMTP(rawURL, "no-reply@harmony.example")
	if err != nil {
		t.Fatal(err)
	}
	s.dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, f.addr())
	}
	s.tlsConfig = &tls.Config{RootCAs: f.pool}
	return s
}

func (f *fakeSMTP) only(t *testing.T) fakeSession {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(f.sessions))
	}
	return f.sessions[0]
}

// waitFor returns the sessions once n have ended, failing after a while.
func (f *fakeSMTP) waitFor(t *testing.T, n int) []fakeSession {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		f.mu.Lock()
		got := append([]fakeSession(nil), f.sessions...)
		f.mu.Unlock()
		if len(got) >= n {
			return got
		}
	}
	t.Fatalf("fewer than %d SMTP sessions ended", n)
	return nil
}

func (f *fakeSMTP) serve(conn net.Conn, n int) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	s := fakeSession{conn: n}
	delivered := false
	record := func() {
		f.mu.Lock()
		f.sessions = append(f.sessions, s)
		f.mu.Unlock()
	}
	defer func() {
		if !delivered {
			record()
		}
	}()
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{f.cert}}
	if f.opts.implicitTLS {
		conn = tls.Server(conn, tlsConfig)
		s.tls = true
	}
	tp := textproto.NewConn(conn)
	reply := func(line string) { tp.PrintfLine("%s", line) }
	reply("220 fake ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			ext := []string{"250-fake"}
			if f.opts.startTLS && !s.tls {
				ext = append(ext, "250-STARTTLS")
			}
			reply(strings.Join(append(ext, "250 AUTH "+f.opts.auth), "\r\n"))
		case "STARTTLS":
			reply("220 go ahead")
			tc := tls.Server(conn, tlsConfig)
			if err := tc.Handshake(); err != nil {
				return
			}
			conn, s.tls = tc, true
			tp = textproto.NewConn(conn)
		case "AUTH":
			mech, initial, _ := strings.Cut(arg, " ")
			if !strings.Contains(" "+f.opts.auth+" ", " "+mech+" ") {
				reply("504 unrecognized mechanism")
				continue
			}
			switch mech {
			case "PLAIN", "XOAUTH2":
				raw, err := base64.StdEncoding.DecodeString(initial)
				if err != nil {
					reply("535 no")
					continue
				}
				s.auth = string(raw)
			case "LOGIN":
				var answers []string
				for _, prompt := range []string{"Username:", "Password:"} {
					reply("334 " + base64.StdEncoding.EncodeToString([]byte(prompt)))
					line, err := tp.ReadLine()
					if err != nil {
						return
					}
					raw, _ := base64.StdEncoding.DecodeString(line)
					answers = append(answers, string(raw))
				}
				s.auth = "login:" + strings.Join(answers, ":")
			}
			reply("235 ok")
		case "MAIL", "RCPT":
			// A path is <address> (RFC 5321 4.1.2), as real servers insist.
			name, path, _ := strings.Cut(arg, ":")
			path, _, _ = strings.Cut(path, " ")
			if !strings.HasPrefix(path, "<") || !strings.HasSuffix(path, ">") {
				reply("501 bad address syntax")
				continue
			}
			if name == "FROM" {
				s.from = strings.Trim(path, "<>")
			} else {
				s.to = strings.Trim(path, "<>")
			}
			reply("250 ok")
		case "RSET", "NOOP":
			reply("250 ok")
		case "DATA":
			reply("354 go on")
			data, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			s.data = string(data)
			delivered = true
			record()
			reply("250 queued")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 not implemented")
		}
	}
}

// testCertificate is a self-signed certificate for mail.example.org and
// 127.0.0.1, and a pool that trusts it.
func testCertificate(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mail.example.org"},
		DNSNames:              []string{"mail.example.org"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
