package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
)

// fromName is the display name on every message Harmony sends.
const fromName = "Harmony"

// compose renders m as an RFC 5322 message with CRLF line ends: UTF-8
// headers as RFC 2047 encoded words, bodies quoted-printable, and an HTML
// alternative when m has one. It refuses header injection (a line break in
// To or Subject) and anything but one plain recipient address.
func compose(from string, m Message, now time.Time) ([]byte, error) {
	if err := Check(m); err != nil {
		return nil, err
	}
	to, _ := recipient(m.To)
	sender := mail.Address{Name: fromName, Address: from}

	var b bytes.Buffer
	header := func(name, value string) { fmt.Fprintf(&b, "%s: %s\r\n", name, value) }
	header("From", sender.String())
	header("To", to.String())
	header("Subject", mime.BEncoding.Encode("utf-8", m.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", messageID(from))
	header("MIME-Version", "1.0")
	// Automatic mail: out-of-office replies should not answer it (RFC 3834).
	header("Auto-Submitted", "auto-generated")

	if m.HTML == "" {
		header("Content-Type", "text/plain; charset=utf-8")
		header("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		if err := writeQP(&b, m.Text); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}

	parts := multipart.NewWriter(&b)
	header("Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": parts.Boundary()}))
	b.WriteString("\r\n")
	// Clients show the last alternative they understand: text first.
	for _, p := range []struct{ kind, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := parts.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.kind + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		if err := writeQP(w, p.body); err != nil {
			return nil, err
		}
	}
	if err := parts.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Check refuses a message no sender could send (ErrBadMessage): not one
// plain recipient, a line break in the subject, no text body.
func Check(m Message) error {
	if _, err := recipient(m.To); err != nil {
		return err
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return fmt.Errorf("%w: line break in the subject", ErrBadMessage)
	}
	if strings.TrimSpace(m.Text) == "" {
		return fmt.Errorf("%w: empty text body", ErrBadMessage)
	}
	return nil
}

// recipient accepts one bare address ("anna@example.org") and nothing a
// header could be smuggled in.
func recipient(s string) (*mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, fmt.Errorf("%w: line break in the recipient", ErrBadMessage)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != strings.TrimSpace(s) {
		return nil, fmt.Errorf("%w: recipient %q is not one plain address", ErrBadMessage, s)
	}
	return a, nil
}

func writeQP(w interface{ Write([]byte) (int, error) }, text string) error {
	qp := quotedprintable.NewWriter(w)
	if _, err := qp.Write([]byte(text)); err != nil {
		return err
	}
	return qp.Close()
}

// messageID is a unique Message-ID in the sender's domain.
func messageID(from string) string {
	domain := "localhost"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		domain = from[at+1:]
	}
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return "<" + hex.EncodeToString(b) + "@" + domain + ">"
}
