package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/mail"
)

const forgetUsage = "usage: web forget MEMBERKEY|EMAIL [settings flags]"

// forgetCmd is "web forget auth:…|email": it erases an account its owner
// closed (asked to delete) at once, as the account.forget task would,
// and drops that task: the repair once the cause of a dead task is fixed.
// An account that is not closed is refused.
func forgetCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		return flag.ErrHelp
	}
	who, args := subjectOf(args)
	if who == "" {
		return usagef("forget whom? Name the account by its memberKey or email.\n%s", forgetUsage)
	}
	a, closeStore, err := openCommandApp(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	core := a.Built.Core
	memberKey := who
	if strings.Contains(who, "@") {
		if memberKey, err = core.Auth.MemberByEmail(ctx, who); err != nil {
			return fmt.Errorf("no account has the address %s: %w", who, err)
		}
	}
	// The mail, in the language the member chose (English when none).
	settings, err := core.Accounts.Settings(ctx, memberKey)
	if err != nil {
		return err
	}
	cat, err := i18n.New()
	if err != nil {
		return err
	}
	lang, ok := i18n.ParseLang(settings.Language)
	if !ok {
		lang = i18n.Default
	}
	z := cat.For(lang)
	done := mail.Message{Subject: z.T("account.deleted.mail.subject"), Text: z.T("account.deleted.mail.text")}
	if err := core.Accounts.ForgetClosed(ctx, memberKey, done); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "forgot %s\n", memberKey)
	return err
}
