package auth

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/storage"
	authview "github.com/harmony/harmony/views/auth"
)

// Email one-time codes (document 003). One row per email holds the current
// code's hash, its expiry, the wrong attempts and the send cooldown.
//
// The attempt budget belongs to one issued code: five wrong guesses burn
// that code and nothing else. There is no lockout of the address, because
// anyone can request a code for anyone's address and type wrong ones: a
// lockout would let a stranger keep a person out of their account. The
// owner asks for a fresh code after the one-minute cooldown and it works.
// What bounds guessing instead: a code is one of 10^6, five guesses each,
// at most one new code per address per minute (so at most 5 guesses a
// minute on an address, whoever asks), and wrong codes are limited per
// client IP (wrongCodeBurst, then one per wrongCodeEvery: about 500 a day),
// which is what stops one machine from guessing across many addresses.
// One IP at that rate needs about 2,000 days for an even chance at one
// address; the remaining risk is a large botnet on one address, which the
// per-address minute bound keeps at 5 × 1,440 guesses a day (0.7 %).
//
// Mail to one address is bounded too, or anyone could have a person sent
// a code a minute all day. The cooldown grows with the sends in a row
// (each within runGap of the last): three a minute apart, then 2, 4 and 8
// minutes, then one every maxCooldown. That is at most about 150 mails a
// day whoever asks. The wait stays short, and never longer than a code
// lives, so the owner always has the newest code in their inbox, and a
// burnt one is replaced within maxCooldown. An hour without a send, or a
// sign-in with the code (which deletes the row), starts a new run.
const (
	codeDigits = 6
	// codeTTL is how long a code works.
	codeTTL = 10 * time.Minute
	// maxCodeAttempts wrong guesses burn the code.
	maxCodeAttempts = 5
	// codeCooldown separates two sends to one address; after freeSends
	// in a row it doubles with each send, up to maxCooldown.
	codeCooldown = 60 * time.Second
	freeSends    = 3
	maxCooldown  = codeTTL
	// runGap without a send ends a run of sends.
	runGap = time.Hour
)

// Errors of SendCode and VerifyCode. Each carries the status and message
// a person sees, except ErrCodeWrong, which comes with the attempts left
// (AttemptsLeft).
var (
	// ErrCodeFormat is input that is not six digits; it costs no attempt.
	ErrCodeFormat = fault.New(http.StatusUnprocessableEntity, "auth.error.code_format", "auth: a code is six digits")
	ErrCodeWrong  = errors.New("auth: wrong code")
	// ErrCodeBurned follows the last wrong attempt a code allows; that
	// code is gone, and a new one may be requested after the cooldown.
	ErrCodeBurned  = fault.New(http.StatusUnprocessableEntity, "auth.error.code_burned", "auth: too many wrong codes")
	ErrCodeExpired = fault.New(http.StatusUnprocessableEntity, "auth.error.code_expired", "auth: code expired")
	// ErrCodeInvalid means there is no usable code: never sent, used, or
	// burnt by wrong attempts.
	ErrCodeInvalid = fault.New(http.StatusUnprocessableEntity, "auth.error.code_invalid", "auth: no valid code")
	// ErrMailUnavailable means this server cannot send mail.
	ErrMailUnavailable = fault.New(http.StatusServiceUnavailable, "auth.signin.email_unavailable", "auth: no mail sender configured")
	// ErrMailFailed means the mail server refused or could not be reached.
	ErrMailFailed = fault.New(http.StatusServiceUnavailable, "auth.error.mail_failed", "auth: sending the code failed")
)

// otpRow is the email's code state, in table OtpCodes.
type otpRow struct {
	UserKey string `table:"PartitionKey"`
	Kind    string `table:"RowKey"`
	ETag    string `table:"ETag"`
	// CodeHash is HMAC-SHA256 of the code under a key derived from
	// SESSION_KEYS, so a copy of the table does not give the codes away
	// (a million codes are quick to try against a plain hash). Empty once
	// the code is burnt.
	CodeHash  []byte    `table:"CodeHash"`
	SentAt    time.Time `table:"SentAt"`
	ExpiresAt time.Time `table:"ExpiresAt"`
	// Attempts are the wrong guesses at this code; a new code starts at 0.
	Attempts int32 `table:"Attempts"`
	// Sends counts the codes sent in this run, SentAt being the last.
	Sends int32 `table:"Sends"`
}

// nextSend is when the address may be sent another code.
func (r *otpRow) nextSend() time.Time {
	wait := codeCooldown
	for i := int32(freeSends); i <= r.Sends && wait < maxCooldown; i++ {
		wait *= 2
	}
	return r.SentAt.Add(min(wait, maxCooldown))
}

// sendsAfter is the run a send at now continues: the row's, or a new one
// after runGap without a send.
func (r *otpRow) sendsAfter(now time.Time) int32 {
	if r == nil || !now.Before(r.SentAt.Add(runGap)) {
		return 1
	}
	return r.Sends + 1
}

// codeKey is the OtpCodes row's keys.
func codeKey(userKey string) (pk, rk string) { return userKey, "otp" }

// codeRemaining is how many wrong codes are left before the code burns.
func (r *otpRow) codeRemaining() int { return maxCodeAttempts - int(r.Attempts) }

// SendCode emails a new sign-in code to email (normalized), unless the
// address is within its cooldown: then it quietly does nothing, so the
// answer is the same in every case and for every address, known or not.
// The new code replaces the last one, burnt or not, with a fresh attempt
// budget.
func (s *Service) SendCode(ctx context.Context, email string) error {
	if s.mailer == nil {
		return ErrMailUnavailable
	}
	userKey := UserKey(email)
	var code string
	var sentETag string
	err := storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		code, sentETag = "", ""
		now := s.now()
		row, err := s.getCode(ctx, userKey)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if row != nil && now.Before(row.nextSend()) {
			return nil
		}
		code = newCode()
		pk, rk := codeKey(userKey)
		next := otpRow{UserKey: pk, Kind: rk, CodeHash: s.hashCode(s.codeKeys[0], userKey, code), SentAt: now, ExpiresAt: now.Add(codeTTL), Sends: row.sendsAfter(now)}
		e, err := storage.Marshal(next)
		if err != nil {
			return err
		}
		if row == nil {
			sentETag, err = s.codes.Insert(ctx, e)
		} else {
			sentETag, err = s.codes.Update(ctx, e, storage.Replace, row.ETag)
		}
		return err
	})
	if err != nil || code == "" {
		return err
	}
	msg, err := s.codeMessage(ctx, email, code)
	if err == nil {
		err = s.mailer.Send(ctx, msg)
	}
	if err != nil {
		// No code reached the user, so no cooldown should stop a retry.
		pk, rk := codeKey(userKey)
		if derr := s.codes.Delete(ctx, pk, rk, sentETag); derr != nil && !errors.Is(derr, storage.ErrPrecondition) && !errors.Is(derr, storage.ErrNotFound) {
			s.log.WarnContext(ctx, "could not withdraw an unsent code", "err", derr)
		}
		return fmt.Errorf("%w: %w", ErrMailFailed, err)
	}
	return nil
}

// VerifyCode checks code for email (normalized) and uses it up: a code
// works once. Wrong codes count against this code only; the fifth burns it
// (ErrCodeBurned), and the address can have a new one after the cooldown.
func (s *Service) VerifyCode(ctx context.Context, email, code string) error {
	code = strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, code)
	if len(code) != codeDigits || strings.Trim(code, "0123456789") != "" {
		return ErrCodeFormat
	}
	userKey := UserKey(email)
	var result error
	err := storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		now := s.now()
		row, err := s.getCode(ctx, userKey)
		if errors.Is(err, storage.ErrNotFound) {
			result = ErrCodeInvalid
			return nil
		} else if err != nil {
			return err
		}
		switch {
		case len(row.CodeHash) == 0:
			result = ErrCodeInvalid
			return nil
		case !now.Before(row.ExpiresAt):
			result = ErrCodeExpired
			return nil
		case s.codeMatches(userKey, code, row.CodeHash):
			// Deleting with the ETag makes the code single-use even when
			// two requests carry it at once. The send cooldown goes with
			// the row: only someone who had the code can lift it.
			result = nil
			pk, rk := codeKey(userKey)
			return s.codes.Delete(ctx, pk, rk, row.ETag)
		}
		row.Attempts++
		result = &wrongCode{left: row.codeRemaining()}
		if row.codeRemaining() <= 0 {
			row.CodeHash = nil
			result = ErrCodeBurned
		}
		e, err := storage.Marshal(row)
		if err != nil {
			return err
		}
		_, err = s.codes.Update(ctx, e, storage.Replace, row.ETag)
		return err
	})
	if err != nil {
		return err
	}
	return result
}

// wrongCode is ErrCodeWrong with the attempts left.
type wrongCode struct{ left int }

func (w *wrongCode) Error() string { return fmt.Sprintf("%v (%d attempts left)", ErrCodeWrong, w.left) }
func (w *wrongCode) Unwrap() error { return ErrCodeWrong }

// AttemptsLeft returns how many wrong codes remain after err, if err says.
func AttemptsLeft(err error) (int, bool) {
	var w *wrongCode
	if errors.As(err, &w) {
		return w.left, true
	}
	return 0, false
}

func (s *Service) getCode(ctx context.Context, userKey string) (*otpRow, error) {
	pk, rk := codeKey(userKey)
	row, err := storage.Get[otpRow](ctx, s.codes, pk, rk)
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// newCode is six uniformly random digits from the CSPRNG.
func newCode() string {
	// crypto/rand.Reader never returns an error (Go 1.24+), so neither
	// does rand.Int here.
	n, _ := rand.Int(rand.Reader, big.NewInt(1_000_000))
	return fmt.Sprintf("%06d", n.Int64())
}

// hashCode binds the code to the address, so a hash is no use for another.
func (s *Service) hashCode(key []byte, userKey, code string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(userKey + "|" + code))
	return m.Sum(nil)
}

// codeMatches compares in constant time under every configured key, so
// codes sent just before a key rotation still work.
func (s *Service) codeMatches(userKey, code string, hash []byte) bool {
	ok := false
	for _, k := range s.codeKeys {
		if hmac.Equal(s.hashCode(k, userKey, code), hash) {
			ok = true
		}
	}
	return ok
}

// codeMessage is the code email in the request's language.
func (s *Service) codeMessage(ctx context.Context, to, code string) (mail.Message, error) {
	minutes := int(codeTTL / time.Minute)
	var html bytes.Buffer
	if err := authview.CodeEmailHTML(authview.CodeEmailProps{Code: code, Minutes: minutes}).Render(ctx, &html); err != nil {
		return mail.Message{}, err
	}
	text := strings.Join([]string{
		i18n.T(ctx, "auth.mail.greeting"),
		"",
		i18n.T(ctx, "auth.mail.intro"),
		"",
		"    " + code,
		"",
		i18n.N(ctx, "auth.mail.expires", minutes),
		i18n.T(ctx, "auth.mail.ignore"),
		"",
	}, "\n")
	return mail.Message{
		To:      to,
		Subject: i18n.T(ctx, "auth.mail.subject", "code", code),
		Text:    text,
		HTML:    html.String(),
	}, nil
}
