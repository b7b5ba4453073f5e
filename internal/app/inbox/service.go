// Package inbox is every member's notifications: one function (Post)
// through which any module tells people something, a per-member list
// newest first with an unread badge in the header, and email delivery
// through the task queue that honours the member's notification settings.
package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/lru"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/tasks"
)

// Accounts is what the inbox reads about a recipient: the email address
// and zone on the profile, and the language and notification switches in
// the settings.
type Accounts interface {
	Profile(ctx context.Context, memberKey string) (account.ProfileRow, error)
	Settings(ctx context.Context, memberKey string) (account.SettingsRow, error)
}

// Directory finds the account that owns a verified address.
type Directory interface {
	MemberByEmail(ctx context.Context, email string) (string, error)
}

// Service is the inbox module.
type Service struct {
	table    *storage.Table
	accounts Accounts
	dir      Directory
	mailer   mail.Sender // the delivering sender: the inbox task is the queue
	cursors  *storage.Cursors
	catalog  *i18n.Catalog
	baseURL  string
	log      *slog.Logger
	now      func() time.Time

	post    tasks.Kind[posted]
	deliver tasks.Kind[delivery]
	badges  *lru.Cache[string, badge]
	mails   quota.Limit
	blocks  Blocks
	quotes  map[string]Quotes

	// feed carries the inbox's changes to its open pages (live.go).
	feed     *live.Feed
	sessions live.Sessions
	streams  *ratelimit.Concurrent
	beat     time.Duration
}

// Blocks says whom a person blocked (the chat module keeps the rows): a
// notice from someone its recipient blocked is not delivered.
type Blocks interface {
	HasBlocked(ctx context.Context, blocker, other string) (bool, error)
}

// UseBlocks has notices checked against b. Call it while wiring, before
// serving.
func (s *Service) UseBlocks(b Blocks) { s.blocks = b }

// Quotes reads what a notice quotes (Notice.Ref) as it is at delivery:
// a notice waiting in the queue when its original was edited or deleted
// has no row for Requote to change yet. ok false: the original is gone.
type Quotes interface {
	Quote(ctx context.Context, ref string) (quote string, ok bool, err error)
}

// UseQuotes has the quoting notices of module's kinds ("chat" for
// "chat.notify.private") brought up to date by q at delivery. Call it
// while wiring, before serving.
func (s *Service) UseQuotes(module string, q Quotes) {
	if s.quotes == nil {
		s.quotes = map[string]Quotes{}
	}
	s.quotes[module] = q
}

// MailsPerHour bounds the notification emails one person gets in an
// hour, whatever sends them: past it a notice still reaches the inbox
// (a row), but not the mailbox. Someone cancelling and restoring an
// appointment in a loop, or commenting without end, then fills at most
// a few emails an hour of each member's.
const MailsPerHour = 10

// errMailsUsed is a recipient's hour of emails used up.
var errMailsUsed = errors.New("inbox: the recipient's emails this hour are used")

// Deps are what New needs.
type Deps struct {
	Store    *storage.Store
	Tasks    *tasks.Queue
	Accounts Accounts
	Dir      Directory
	// Mailer may be nil: notifications then stay in the inbox.
	Mailer  mail.Sender
	Cursors *storage.Cursors
	BaseURL string
	Log     *slog.Logger
	Now     func() time.Time
	// Live is the app's change feed; nil gives the inbox one of its own
	// on Store. Sessions, when set, ends a stream with its session.
	Live     *live.Feed
	Sessions live.Sessions
}

// New builds the service and registers its task kinds.
func New(d Deps) (*Service, error) {
	catalog, err := i18n.New()
	if err != nil {
		return nil, err
	}
	s := &Service{
		table:    d.Store.Table(Table),
		accounts: d.Accounts,
		dir:      d.Dir,
		mailer:   mail.Delivering(d.Mailer),
		cursors:  d.Cursors,
		catalog:  catalog,
		baseURL:  d.BaseURL,
		log:      d.Log,
		now:      d.Now,
		badges:   lru.New[string, badge](badgesKept),
		mails:    quota.Limit{Table: d.Store.Table(QuotaTable), Max: MailsPerHour, Window: time.Hour, Err: errMailsUsed},
		feed:     d.Live,
		sessions: d.Sessions,
		streams:  ratelimit.NewConcurrent(MaxStreams),
		beat:     streamBeat,
	}
	if s.feed == nil {
		s.feed = live.New(d.Store, d.Log, d.Now, live.Options{})
	}
	if s.post, err = tasks.Register(d.Tasks, "inbox.post", s.fanOut); err != nil {
		return nil, err
	}
	if s.deliver, err = tasks.Register(d.Tasks, "inbox.deliver", s.deliverOne); err != nil {
		return nil, err
	}
	return s, nil
}

// Slug names the module.
func (s *Service) Slug() string { return "inbox" }

// Tables are the module's tables.
func (s *Service) Tables() []string { return []string{Table, QuotaTable} }

// Recipient is who a notice is for: an account by member key, or an
// address (which finds its account, if there is one; without one the
// notice is only mailed).
type Recipient struct {
	MemberKey string `json:",omitempty"`
	Email     string `json:",omitempty"`
}

// Notice is what a module tells people. Its text is the message
// Kind+".title" (the inbox line) and Kind+".mail_subject" and
// ".mail_text" (the email), filled with Args, plus "when" (When in the
// reader's zone and language) and "link" (the absolute Link, in mail).
// An argument InLanguage(k, lang) stands in for k for readers of lang.
type Notice struct {
	To   []Recipient
	Kind string
	Args map[string]string
	When time.Time
	Link string
	// Key makes Post idempotent: a second Post with the same key within
	// tasks.KeyTTL posts nothing.
	Key string
	// From is the member whose doing the notice tells of (who replied,
	// mentioned, invited): a recipient who blocked them is not told. ""
	// is the app's own news (a reminder, a cancelled event).
	From string `json:",omitempty"`
	// Ref names what the notice quotes in its "preview" argument ("" for
	// nothing), in the posting module's own terms (a chat message's
	// "{chatId}|{seq}"), so Requote can follow the original when it is
	// edited or deleted.
	Ref string `json:",omitempty"`
	// QuoteUntil, when set, is when the quote goes (the original expires):
	// the inbox shows the notice as withdrawn from then on.
	QuoteUntil time.Time `json:",omitzero"`
	// NoMail keeps it to the inbox: a small thing not worth an email (a
	// report upheld). It has no mail texts.
	NoMail bool `json:",omitempty"`
	// Gather names what notices of its kind gather around (a post, an
	// event, a topic; "" for none): an unread notice of the same kind
	// and Gather among the recipient's newest becomes this one, moved to
	// the top and saying how many others did the same ("Lily and 2
	// others commented on…", Kind+".title_more", plural in {n}), as
	// Discourse consolidates its notifications. Only a notice From
	// someone gathers; its email goes as ever.
	Gather string `json:",omitempty"`
	// Names says which arguments are members' names, and whose (argument
	// → memberKey), so a member who deletes their account reads "Deleted
	// member" there and no one else of the same name does. Post takes
	// "name" to be From's unless Names says otherwise. A notice without
	// it (one of before, one quoting a name whose member is not known) is
	// renamed by the name alone.
	Names map[string]string `json:",omitempty"`
}

// posted is a notice on its way: the task that fans it out.
type posted struct {
	Notice
	ID   string
	At   time.Time
	Lang string // the poster's language, for readers without an account
}

// delivery is one recipient's copy.
type delivery struct {
	posted
	For Recipient
}

// ErrBadNotice is a notice no one could read.
var ErrBadNotice = errors.New("inbox: bad notice")

// Poster is what a module that tells people things needs: the inbox's
// Post. Modules take it as their Notifier.
type Poster interface {
	Post(ctx context.Context, n Notice) error
}

// Post queues n for its recipients: one write on the caller's path. The
// drain writes each inbox row and sends each email.
func (s *Service) Post(ctx context.Context, n Notice) error {
	if len(n.To) == 0 {
		return nil
	}
	if n.Kind == "" || s.catalog.For(i18n.EN).T(n.Kind+".title") == n.Kind+".title" {
		return fmt.Errorf("%w: kind %q has no message", ErrBadNotice, n.Kind)
	}
	if n.Gather != "" && s.catalog.For(i18n.EN).N(n.Kind+".title_more", 2) == n.Kind+".title_more" {
		return fmt.Errorf("%w: kind %q gathers but has no title_more", ErrBadNotice, n.Kind)
	}
	if n.From != "" && n.Args["name"] != "" && n.Names["name"] == "" {
		n.Names = maps.Clone(n.Names)
		if n.Names == nil {
			n.Names = map[string]string{}
		}
		n.Names["name"] = n.From
	}
	p := posted{Notice: n, ID: ulid.Make().String(), At: s.now().UTC(), Lang: string(i18n.LangOf(ctx))}
	return s.post.Enqueue(ctx, n.Key, p)
}

// fanOut gives each recipient their own delivery task, keyed so that a
// retried fan-out adds none twice.
func (s *Service) fanOut(ctx context.Context, p posted) error {
	if len(p.To) == 1 {
		return s.deliverOne(ctx, delivery{posted: p, For: p.To[0]})
	}
	for _, to := range p.To {
		d := delivery{posted: p, For: to}
		d.To = nil
		if err := s.deliver.Enqueue(ctx, "inbox|"+p.ID+"|"+to.MemberKey+"|"+to.Email, d); err != nil {
			return err
		}
	}
	return nil
}

// deliverOne writes the recipient's inbox row (once: a retry finds it)
// and mails them if their settings allow.
func (s *Service) deliverOne(ctx context.Context, d delivery) error {
	memberKey := d.For.MemberKey
	if memberKey == "" && d.For.Email != "" {
		mk, err := s.dir.MemberByEmail(ctx, d.For.Email)
		switch {
		case err == nil:
			memberKey = mk
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
	}
	if blocked, err := s.blockedBy(ctx, memberKey, d.From); err != nil || blocked {
		return err
	}
	if err := s.requoteNow(ctx, &d.posted); err != nil {
		return err
	}
	var settings *account.SettingsRow
	if memberKey != "" {
		st, err := s.accounts.Settings(ctx, memberKey)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if err == nil {
			settings = &st
		}
		// "Show notifications on the site" off: no inbox row, no badge,
		// and (as the settings page says) no email either.
		if settings != nil && !settings.NotificationsEnabled {
			return nil
		}
		if err := s.writeRow(ctx, memberKey, d.posted); err != nil {
			return err
		}
	}
	if d.NoMail {
		return nil
	}
	return s.mail(ctx, memberKey, settings, d)
}

// blockedBy reports whether memberKey blocked from: one point read when
// both are known.
func (s *Service) blockedBy(ctx context.Context, memberKey, from string) (bool, error) {
	if s.blocks == nil || memberKey == "" || from == "" || memberKey == from {
		return false, nil
	}
	return s.blocks.HasBlocked(ctx, memberKey, from)
}

// requoteNow quotes in p its original as it is now (Quotes); one gone
// makes p withdrawn, and not mailed: there is nothing left to read.
func (s *Service) requoteNow(ctx context.Context, p *posted) error {
	module, _, _ := strings.Cut(p.Kind, ".")
	q := s.quotes[module]
	if q == nil || p.Ref == "" {
		return nil
	}
	quote, ok, err := q.Quote(ctx, p.Ref)
	if err != nil {
		return err
	}
	args := maps.Clone(p.Args)
	if args == nil {
		args = map[string]string{}
	}
	if ok {
		args["preview"] = quote
	} else {
		p.Kind, p.NoMail = unquote(p.Kind, args), true
	}
	p.Args = args
	return nil
}

func (s *Service) writeRow(ctx context.Context, memberKey string, p posted) error {
	args, err := json.Marshal(p.Args)
	if err != nil {
		return err
	}
	pk, rk := noticeKey(memberKey, p.At, p.ID)
	row := NoticeRow{MemberKey: pk, RowKey: rk, Kind: p.Kind, Args: string(args), Link: p.Link, At: p.At, Ref: p.Ref}
	if p.Names != nil {
		names, err := json.Marshal(p.Names)
		if err != nil {
			return err
		}
		row.Names = string(names)
	}
	if !p.When.IsZero() {
		row.When = &p.When
	}
	if !p.QuoteUntil.IsZero() {
		row.QuoteUntil = &p.QuoteUntil
	}
	if p.Gather != "" && p.From != "" {
		row.Gather, row.Actors, row.Gathered = p.Gather, p.From, p.ID
		err = storage.Optimistic(ctx, gatherAttempts, func(ctx context.Context) error { return s.gather(ctx, row, p.ID) })
	} else {
		_, err = storage.Insert(ctx, s.table, row)
	}
	if errors.Is(err, storage.ErrExists) || errors.Is(err, errGathered) {
		return nil // a retry: the first try told the member
	}
	if err != nil {
		return err
	}
	s.badges.Delete(memberKey)
	s.changed(ctx, memberKey)
	return nil
}

// Gathering (Notice.Gather) looks through a member's newest notices
// only, and a gathered notice keeps the ids of the notices it gathered,
// newest first, up to a bound: a retried delivery finds its own there.
const (
	gatherScan     = 20
	gatherKeep     = 50
	gatherAttempts = 5
)

// errGathered is a delivery a first try wrote already.
var errGathered = errors.New("inbox: gathered already")

// gather writes row, notice id's, into its member's inbox: in place of
// the newest unread notice of its kind and Gather, if one is among the
// newest gatherScan, with that one's actors after row's (distinct) and
// its ids after id, the old row deleted at its ETag in the same
// transaction; else as a row of its own. A retry of a delivery written
// already is errGathered.
func (s *Service) gather(ctx context.Context, row NoticeRow, id string) error {
	state, err := s.state(ctx, row.MemberKey)
	if err != nil {
		return err
	}
	q := storage.Query{PartitionKey: row.MemberKey, RowKeyTo: noticeKeysEnd, Limit: gatherScan}
	newest, _, err := storage.TakePage[NoticeRow](ctx, s.table, q, gatherScan)
	if err != nil {
		return err
	}
	var into *NoticeRow
	for i, r := range newest {
		if r.RowKey == row.RowKey || slices.Contains(strings.Split(r.Gathered, ","), id) {
			return errGathered
		}
		if into == nil && r.Kind == row.Kind && r.Gather == row.Gather && r.Gather != "" && !r.Read && r.At.After(state.ReadThrough) {
			into = &newest[i]
		}
	}
	if into == nil {
		_, err := storage.Insert(ctx, s.table, row)
		return err
	}
	actors := []string{row.Actors}
	for _, a := range strings.Split(into.Actors, ",") {
		if a != "" && !slices.Contains(actors, a) {
			actors = append(actors, a)
		}
	}
	ids := append([]string{id}, strings.Split(into.Gathered, ",")...)
	row.Actors, row.Gathered = strings.Join(actors, ","), strings.Join(ids[:min(len(ids), gatherKeep)], ",")
	if into.At.After(row.At) {
		// A delivery late (retried) keeps the line where it stood, not
		// below notices that came since.
		row.At = into.At
		_, row.RowKey = noticeKey(row.MemberKey, row.At, id)
	}
	var tx storage.Tx
	tx.Delete(into.MemberKey, into.RowKey, into.ETag)
	tx.Insert(row)
	return tx.Commit(ctx, s.table)
}

// mail sends the email copy: to an account's address when its settings
// allow notifications by email, or to the bare address of someone
// without an account (an invitation is how they learn of it).
func (s *Service) mail(ctx context.Context, memberKey string, settings *account.SettingsRow, d delivery) error {
	if s.mailer == nil {
		return nil
	}
	to, lang, zone := d.For.Email, d.Lang, time.UTC
	if memberKey != "" {
		if settings == nil || !settings.NotificationsEnabled || !settings.EmailNotifications || !settings.Emails(d.Kind) {
			return nil
		}
		profile, err := s.accounts.Profile(ctx, memberKey)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if profile.Email != "" {
			to = profile.Email
		}
		if settings.Language != "" {
			lang = settings.Language
		}
		if loc, err := time.LoadLocation(profile.Timezone); err == nil && profile.Timezone != "" {
			zone = loc
		}
	}
	if to == "" {
		return nil
	}
	key := memberKey
	if key == "" {
		key = auth.UserKey(to)
	}
	if err := s.mails.Take(ctx, key, s.now()); errors.Is(err, errMailsUsed) {
		s.log.InfoContext(ctx, "inbox: no email past the recipient's hourly limit", "kind", d.Kind)
		return nil
	} else if err != nil {
		return err
	}
	l, ok := i18n.ParseLang(lang)
	if !ok {
		l = i18n.Default
	}
	lctx := i18n.WithLocalizer(ctx, s.catalog.For(l))
	args := messageArgs(lctx, d.Args, d.When, zone)
	args = append(args, "link", s.baseURL+d.Link, "settings", s.baseURL+"/account/settings")
	err := s.mailer.Send(ctx, mail.Message{
		To:      to,
		Subject: i18n.T(lctx, d.Kind+".mail_subject", args...),
		Text:    i18n.T(lctx, d.Kind+".mail_text", args...),
	})
	if errors.Is(err, mail.ErrBadMessage) {
		return tasks.Permanent(err)
	}
	return err
}

// InLanguage names the argument that stands in for key for readers of
// lang: a notice naming something that has a name per language (a forum
// section) carries each, and every reader, inbox and email alike, reads
// their own.
func InLanguage(key string, lang i18n.Lang) string { return key + "@" + string(lang) }

// messageArgs are a notice's message arguments in ctx's language (an
// argument InLanguage(k, lang) stands in for k), with "when" in zone.
func messageArgs(ctx context.Context, args map[string]string, when time.Time, zone *time.Location) []any {
	lang := i18n.LangOf(ctx)
	out := make([]any, 0, 2*len(args)+2)
	for k, v := range args {
		if strings.Contains(k, "@") {
			continue
		}
		if local := args[InLanguage(k, lang)]; local != "" {
			v = local
		}
		out = append(out, k, v)
	}
	if !when.IsZero() {
		out = append(out, "when", i18n.DateTime(ctx, when.In(zone)))
	}
	return out
}

// Item is one notification as a page shows it.
type Item struct {
	ID     string
	Kind   string
	Args   map[string]string
	When   time.Time
	Link   string
	At     time.Time
	Unread bool
	// Others is how many others' notices it gathered (Notice.Gather).
	Others int
}

// Text is the notification's line in ctx's language, times in zone; one
// that gathered others' says how many (Kind+".title_more").
func (it Item) Text(ctx context.Context, zone *time.Location) string {
	args := messageArgs(ctx, it.Args, it.When, zone)
	if more := it.Kind + ".title_more"; it.Others > 0 {
		if text := i18n.N(ctx, more, it.Others, args...); text != more {
			return text
		}
	}
	return i18n.T(ctx, it.Kind+".title", args...)
}

// Page is one page of a member's inbox.
type Page struct {
	Items []Item
	// Next is the next page's cursor token, "" on the last page.
	Next string
}

// pageSize is how many notifications a page shows.
const pageSize = 30

// Listing is which of a member's notices a list shows: all or only the
// unread ones, from every module or from one (From, a module's slug:
// the first word of the notices' kinds).
type Listing struct {
	Unread bool
	From   string
}

// listQuery names the inbox list l for cursors.
func listQuery(memberKey string, l Listing) string {
	q := "inbox|" + memberKey
	if l.Unread {
		q += "|unread"
	}
	if l.From != "" {
		q += "|from=" + l.From
	}
	return q
}

// listRange is memberKey's notices of listing l, newest first: all of
// them, or with Unread only those not read yet (not marked, and after
// the state's readThrough), which the badge counts; with From only those
// whose kind starts with its word and a dot (a range of the kind, "."
// then "/" following it).
func listRange(memberKey string, state StateRow, l Listing) storage.Query {
	q := storage.Query{PartitionKey: memberKey, RowKeyTo: noticeKeysEnd}
	if l.Unread {
		q.Filters = []storage.Filter{{Name: "read", Op: storage.Eq, Value: false}}
		if !state.ReadThrough.IsZero() {
			// Newer rows sort first: those after readThrough are below its key.
			q.RowKeyTo = storage.ReverseTicks(state.ReadThrough)
		}
	}
	if l.From != "" {
		q.Filters = append(q.Filters, storage.Filter{Name: "kind", Op: storage.Ge, Value: l.From + "."}, storage.Filter{Name: "kind", Op: storage.Lt, Value: l.From + "/"})
	}
	return q
}

// List reads a page of memberKey's inbox, newest first, as l lists it.
func (s *Service) List(ctx context.Context, memberKey string, cur *storage.Cursor, l Listing) (Page, error) {
	state, err := s.state(ctx, memberKey)
	if err != nil {
		return Page{}, err
	}
	q := listRange(memberKey, state, l)
	q.Limit = pageSize
	if cur != nil {
		q.Continuation = cur.Next
	}
	rows, next, err := storage.TakePage[NoticeRow](ctx, s.table, q, pageSize)
	if err != nil {
		return Page{}, err
	}
	out := Page{Items: make([]Item, 0, len(rows))}
	for _, r := range rows {
		out.Items = append(out.Items, s.item(ctx, memberKey, r, state.ReadThrough))
	}
	if next != nil {
		out.Next = s.cursors.Encode(listQuery(memberKey, l), storage.Cursor{Next: next})
	}
	return out, nil
}

// refreshMost is the most notices a page following a change brings
// again (ListUntil): ten pages loaded.
const refreshMost = 10 * pageSize

// untilParam names the last notice a page shows, which its fetch on a
// change asks for again.
const untilParam = "until"

// errBadUntil refuses an until that is no notice's key.
var errBadUntil = fault.New(http.StatusBadRequest, "inbox.error.until", "inbox: until is not a notice")

// ListUntil reads memberKey's inbox again for a page that shows it down
// to the notice until ("" for none), whose next page is next (nil for
// none): the notices newest first down to until, the ones that came
// since on top, and next still after them. Past refreshMost of them it
// is the first page, as a reload would be. One range query, or two.
func (s *Service) ListUntil(ctx context.Context, memberKey, until string, next *storage.Cursor, l Listing) (Page, error) {
	if until == "" {
		return s.List(ctx, memberKey, nil, l)
	}
	if !validNoticeRowKey(until) {
		return Page{}, errBadUntil
	}
	state, err := s.state(ctx, memberKey)
	if err != nil {
		return Page{}, err
	}
	// Keys are all as long, so until+"0" is past until and before any
	// key after it.
	q := listRange(memberKey, state, l)
	q.RowKeyTo, q.Limit = min(q.RowKeyTo, until+"0"), refreshMost
	rows, more, err := storage.TakePage[NoticeRow](ctx, s.table, q, refreshMost)
	if err != nil {
		return Page{}, err
	}
	if more != nil {
		return s.List(ctx, memberKey, nil, l)
	}
	out := Page{Items: make([]Item, 0, len(rows))}
	for _, r := range rows {
		out.Items = append(out.Items, s.item(ctx, memberKey, r, state.ReadThrough))
	}
	if next != nil {
		out.Next = s.cursors.Encode(listQuery(memberKey, l), *next)
	}
	return out, nil
}

// item is notice row r as a page shows it; readThrough is when its
// reader last marked all read.
func (s *Service) item(ctx context.Context, memberKey string, r NoticeRow, readThrough time.Time) Item {
	var args map[string]string
	if err := json.Unmarshal([]byte(r.Args), &args); err != nil {
		s.log.WarnContext(ctx, "inbox: notification with unreadable args", "member", memberKey, "rk", r.RowKey, "err", err)
	}
	it := Item{ID: r.RowKey, Kind: r.Kind, Args: args, Link: r.Link, At: r.At, Unread: !r.Read && r.At.After(readThrough)}
	if r.Actors != "" {
		it.Others = strings.Count(r.Actors, ",")
	}
	if r.When != nil {
		it.When = *r.When
	}
	if r.QuoteUntil != nil && !s.now().Before(*r.QuoteUntil) {
		it.Kind = unquote(it.Kind, it.Args)
	}
	return it
}

func (s *Service) state(ctx context.Context, memberKey string) (StateRow, error) {
	pk, rk := stateKey(memberKey)
	st, err := storage.Find[StateRow](ctx, s.table, pk, rk, nil)
	return st, err
}

// errNoNotice answers a notification id that is not the member's.
func errNoNotice(cause error) error {
	return fault.NotFound("inbox: no such notification", cause)
}

// MarkRead marks one notification read: one write.
func (s *Service) MarkRead(ctx context.Context, memberKey, id string) error {
	if !validNoticeRowKey(id) {
		return errNoNotice(nil)
	}
	_, err := s.table.Update(ctx, storage.Entity{PartitionKey: memberKey, RowKey: id, Props: map[string]any{"read": true}}, storage.Merge, storage.AnyETag)
	if errors.Is(err, storage.ErrNotFound) {
		return errNoNotice(err)
	}
	s.badges.Delete(memberKey)
	return err
}

// MarkReadItem marks one notification read and returns it as a page
// shows it, now read: what the inbox swaps in for its row. One write and
// one read.
func (s *Service) MarkReadItem(ctx context.Context, memberKey, id string) (Item, error) {
	if err := s.MarkRead(ctx, memberKey, id); err != nil {
		return Item{}, err
	}
	row, err := storage.Get[NoticeRow](ctx, s.table, memberKey, id)
	if err != nil {
		return Item{}, err
	}
	it := s.item(ctx, memberKey, row, time.Time{})
	it.Unread = false
	return it, nil
}

// Open returns where a notification points, marking it read when mark
// says so.
func (s *Service) Open(ctx context.Context, memberKey, id string, mark bool) (string, error) {
	if !validNoticeRowKey(id) {
		return "", errNoNotice(nil)
	}
	row, err := storage.Get[NoticeRow](ctx, s.table, memberKey, id)
	if errors.Is(err, storage.ErrNotFound) {
		return "", errNoNotice(err)
	}
	if err != nil {
		return "", err
	}
	if mark && !row.Read {
		if err := s.MarkRead(ctx, memberKey, id); err != nil {
			return "", err
		}
	}
	if row.Link == "" {
		return "/inbox", nil
	}
	return row.Link, nil
}

// MarkAllRead marks every notification so far read with one write: the
// state row's readThrough moves to now.
func (s *Service) MarkAllRead(ctx context.Context, memberKey string) error {
	pk, rk := stateKey(memberKey)
	_, err := storage.Upsert(ctx, s.table, StateRow{MemberKey: pk, RowKey: rk, ReadThrough: s.now().UTC()})
	s.badges.Delete(memberKey)
	return err
}

// requoteWindow is how long after the quoted original a notice quoting
// it may have been posted: a notice is posted in the request that sent
// the original, so Requote reads only that stretch of an inbox.
const requoteWindow = 5 * time.Minute

// withdrawn is the suffix of the Kind a notice takes once what it quoted
// was deleted or expired: its title (Kind+".withdrawn.title") says so,
// and quotes nothing.
const withdrawn = ".withdrawn"

// unquote takes the quote out of a notice's args and returns the Kind
// that says it is gone.
func unquote(kind string, args map[string]string) string {
	delete(args, "preview")
	if strings.HasSuffix(kind, withdrawn) {
		return kind
	}
	return kind + withdrawn
}

// Requote follows an edit or a deletion of what memberKey's notices
// quote as ref (Notice.Ref), posted at: each such notice quotes quote
// from now on or, when quote is "", quotes nothing and tells its
// withdrawn title instead. It costs one range query of memberKey's
// inbox around at, and a write per notice changed. An email already
// sent cannot be changed.
func (s *Service) Requote(ctx context.Context, memberKey, ref string, at time.Time, quote string) error {
	if memberKey == "" || ref == "" {
		return nil
	}
	q := storage.Query{
		PartitionKey: memberKey,
		RowKeyFrom:   storage.ReverseTicks(at.Add(requoteWindow)),
		RowKeyTo:     storage.ReverseTicks(at.Add(-time.Minute)),
		Filters:      []storage.Filter{{Name: "ref", Op: storage.Eq, Value: ref}},
	}
	rows, err := storage.All[NoticeRow](ctx, s.table, q)
	if err != nil {
		return err
	}
	for _, row := range rows {
		args := map[string]string{}
		if err := json.Unmarshal([]byte(row.Args), &args); err != nil {
			return fmt.Errorf("inbox: notice %s: %w", row.RowKey, err)
		}
		if args == nil { // "null"
			args = map[string]string{}
		}
		if quote == "" {
			row.Kind = unquote(row.Kind, args)
		} else {
			args["preview"] = quote
		}
		b, err := json.Marshal(args)
		if err != nil {
			return err
		}
		// Merge the two properties only, so a mark-read at the same time
		// stays.
		e := storage.Entity{PartitionKey: row.MemberKey, RowKey: row.RowKey, Props: map[string]any{"kind": row.Kind, "args": string(b)}}
		if _, err := s.table.Update(ctx, e, storage.Merge, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	if len(rows) > 0 {
		s.changed(ctx, memberKey)
	}
	return nil
}

// badgeCap is the most unread notifications the badge counts ("99+").
const badgeCap = 100

// Unread counts memberKey's unread notifications, up to badgeCap. The
// header shows it on every page, so the count is kept for badgeTTL in
// this process (a write here forgets it at once; another instance's
// write shows within badgeTTL).
func (s *Service) Unread(ctx context.Context, memberKey string) (int, error) {
	now := s.now()
	if b, ok := s.badges.Get(memberKey); ok && !now.After(b.until) {
		return b.n, nil
	}
	state, err := s.state(ctx, memberKey)
	if err != nil {
		return 0, err
	}
	q := listRange(memberKey, state, Listing{Unread: true})
	q.Select, q.Limit = []string{"read"}, badgeCap
	n := 0
	for n < badgeCap {
		p, err := s.table.Query(ctx, q)
		if err != nil {
			return 0, err
		}
		n += len(p.Entities)
		if p.Next == nil {
			break
		}
		q.Continuation, q.Limit = p.Next, badgeCap-n
	}
	s.badges.Put(memberKey, badge{n: min(n, badgeCap), until: now.Add(badgeTTL)})
	return min(n, badgeCap), nil
}

// badgeTTL is how long a counted badge is reused.
const badgeTTL = 20 * time.Second

type badge struct {
	n     int
	until time.Time
}

// badgesKept is how many people's badges an instance remembers.
const badgesKept = 10_000

// FromCore builds the inbox on the platform's core: the one wiring that
// production and the test harnesses share.
func FromCore(c *platform.Core) (*Service, error) {
	return New(Deps{
		Store: c.Store, Tasks: c.Tasks, Accounts: c.Accounts, Dir: c.Auth, Mailer: c.Mailer,
		Cursors: c.Cursors, BaseURL: c.Config.BaseURL.String(), Log: c.Log, Now: c.Now,
		Live: c.Live, Sessions: c.Auth,
	})
}
