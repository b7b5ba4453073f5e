package blog

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// FieldErrors are a refused post form's errors by field.
type FieldErrors = formrule.FieldErrors

// Limits of a post.
const (
	MaxTags        = 5
	maxTagLength   = 30
	maxSlugLength  = 80
	excerptLength  = 220
	wordsPerMinute = 200
)

// Form rules of a post's fields.
var (
	titleRule   = formrule.Text{Max: 150, Required: true}
	summaryRule = formrule.Text{Max: 300}
	// bodyRule bounds the Markdown, whose rendering grows faster than its
	// length (see richtext).
	bodyRule = formrule.Text{Max: 40000, Required: true, Multiline: true}
	tagsRule = formrule.Text{Max: (maxTagLength + 2) * MaxTags}
)

// tagPattern is a tag: letters and digits of any script, in words
// joined by single hyphens.
var tagPattern = regexp.MustCompile(`^[\p{L}\p{N}]+(-[\p{L}\p{N}]+)*$`)

// reserved are addresses the blog's own pages take.
var reserved = []string{"new", "drafts", "feed.xml", "preview", "follow", "tags"}

// Errors a post's writes refuse with.
var (
	ErrNoPost = fault.NotFound("blog: no such post", storage.ErrNotFound)
)

// Input is the post form as typed.
type Input struct {
	Title   string `form:"title"`
	Slug    string `form:"slug"`
	Summary string `form:"summary"`
	Body    string `form:"body"`
	Tags    string `form:"tags"`
	// PublishAt is when the post appears, in the writer's zone
	// ("2006-01-02T15:04"); "" is now, or the time it was published.
	PublishAt string `form:"publishAt"`
	// Action is what the writer pressed: "draft" keeps (or makes) the
	// post a draft, "publish" publishes it (later, for a time ahead).
	Action      string `form:"action"`
	RemoveCover bool   `form:"removeCover"`
	// Cover is an uploaded cover picture (nil: keep the one there is).
	Cover []byte
}

// Person is who writes a post.
type Person struct{ Key, Name string }

// post is a checked form: the fields a post takes from it.
type post struct {
	slug, title, summary, body string
	tags                       []string
	publish                    bool
	publishAt                  time.Time // zero: now, or when it was published
	cover                      *media.Result
}

// check reads the form in zone; a refused cover is a field error like
// the others.
func (s *Service) check(ctx context.Context, in Input, zone *time.Location) (post, error) {
	errs := FieldErrors{}
	p := post{
		title:   errs.Check("title", titleRule, in.Title, "blog.error.title"),
		summary: errs.Check("summary", summaryRule, in.Summary, "blog.error.summary"),
		body:    errs.Check("body", bodyRule, in.Body, "blog.error.body"),
	}
	if v := strings.TrimSpace(in.Slug); v != "" {
		p.slug = errs.CheckSlug("slug", strings.ToLower(v), maxSlugLength, "blog.error.slug")
		if slices.Contains(reserved, p.slug) {
			errs["slug"] = "blog.error.slug_reserved"
		}
	}
	tags := errs.Check("tags", tagsRule, in.Tags, "blog.error.tags")
	for _, t := range strings.Split(tags, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		switch {
		case t == "" || slices.Contains(p.tags, t):
		case !tagPattern.MatchString(t) || utf8.RuneCountInString(t) > maxTagLength || len(p.tags) == MaxTags:
			errs["tags"] = "blog.error.tags"
		default:
			p.tags = append(p.tags, t)
		}
	}
	switch in.Action {
	case "publish":
		p.publish = true
	case "draft":
	default:
		errs["action"] = "blog.error.action"
	}
	if v := strings.TrimSpace(in.PublishAt); v != "" {
		t, err := time.ParseInLocation("2006-01-02T15:04", v, zone)
		if err != nil || formrule.CheckDate(t) != formrule.OK {
			errs["publishAt"] = "blog.error.publish_at"
		}
		p.publishAt = t.UTC()
	}
	var err error
	if p.cover, err = s.pictures.FormPicture(ctx, in.Cover, "cover", &errs); err != nil {
		return post{}, err
	}
	if len(errs) > 0 {
		return post{}, errs
	}
	return p, nil
}

// apply puts the checked form into row at now: its card follows.
func (p post) apply(row *PostRow, now time.Time) {
	row.Title, row.Summary, row.Body, row.Tags = p.title, p.summary, p.body, strings.Join(p.tags, ",")
	row.Excerpt = p.summary
	if row.Excerpt == "" {
		row.Excerpt = richtext.Plain(p.body, excerptLength)
	}
	row.Minutes = max(1, (len(strings.Fields(richtext.Plain(p.body, 0)))+wordsPerMinute-1)/wordsPerMinute)
	switch {
	case !p.publishAt.IsZero():
		row.PublishAt = p.publishAt
	case p.publish && !row.Published, row.PublishAt.IsZero():
		// A draft's time is when it was written, until it is published.
		row.PublishAt = now
	}
	row.Published = p.publish
	row.UpdatedAt = now
}

// Create adds a post by author: a draft, or published (now or at its
// time). Its address is the one typed, else made from its title; a
// title's taken address gets a number. A bad form or cover writes
// nothing.
func (s *Service) Create(ctx context.Context, author Person, in Input, zone *time.Location) (PostRow, error) {
	p, err := s.check(ctx, in, zone)
	if err != nil {
		return PostRow{}, err
	}
	now := s.now().UTC()
	row := PostRow{PartitionKey: postsPart, CreatedAt: now}
	row.ID, row.AuthorKey, row.AuthorName = ulid.Make().String(), author.Key, author.Name
	p.apply(&row, now)
	if p.cover != nil {
		if row.CoverKey, err = s.pictures.Put(ctx, row.ID, *p.cover); err != nil {
			return PostRow{}, err
		}
	}
	candidates, err := s.addresses(ctx, p.slug, p.title, row.ID)
	if err != nil {
		return PostRow{}, err
	}
	for _, slug := range candidates {
		// The cards' keys hold the address: the intent is each try's.
		row.RowKey, row.Listed = slug, ""
		if err = s.cards.Intend(&row); err != nil {
			break
		}
		row.ETag, err = storage.Insert(ctx, s.posts, row)
		if !errors.Is(err, storage.ErrExists) {
			break
		}
	}
	if errors.Is(err, storage.ErrExists) {
		err = FieldErrors{"slug": "blog.error.slug_taken"}
	}
	if err != nil {
		s.pictures.Delete(ctx, row.CoverKey)
		return PostRow{}, err
	}
	s.queueAnnouncement(ctx, row)
	if err := s.cards.Sync(ctx, nil, &row); err != nil {
		return row, s.behind(ctx, errors.Join(projection.ErrBehind, err), row.RowKey)
	}
	return row, nil
}

// addresses are the addresses a new post tries in turn: the one typed
// (refused at once when taken), else its title's, then with a number
// (2 to 9), then its id. The insert decides between two writers at once.
func (s *Service) addresses(ctx context.Context, typed, title, id string) ([]string, error) {
	if typed != "" {
		_, err := s.Post(ctx, typed)
		switch {
		case err == nil:
			return nil, FieldErrors{"slug": "blog.error.slug_taken"}
		case !errors.Is(err, storage.ErrNotFound):
			return nil, err
		}
		return []string{typed}, nil
	}
	base := formrule.Slugify(title, maxSlugLength-2)
	if base == "" {
		base = "post"
	}
	var out []string
	if !slices.Contains(reserved, base) {
		out = append(out, base)
	}
	for i := 2; i <= 9; i++ {
		out = append(out, base+"-"+strconv.Itoa(i))
	}
	return append(out, strings.ToLower(id)), nil
}

// Update changes old, the post as its editor's route read it. A draft
// may move to another address (a transaction: the old row goes, at the
// ETag read, as the new one comes); a published post keeps its own, since
// links to it are out. A new cover replaces the old, which is deleted once
// the post no longer points to it.
func (s *Service) Update(ctx context.Context, old PostRow, in Input, zone *time.Location) (PostRow, error) {
	slug := old.RowKey
	p, err := s.check(ctx, in, zone)
	if err != nil {
		return PostRow{}, err
	}
	if p.slug == "" {
		p.slug = slug
	}
	if p.slug != slug && old.Published {
		return PostRow{}, FieldErrors{"slug": "blog.error.slug_fixed"}
	}
	newCover, oldCover := "", ""
	if p.cover != nil {
		if newCover, err = s.pictures.Put(ctx, old.ID, *p.cover); err != nil {
			return PostRow{}, err
		}
	}
	edit := func(row *PostRow) {
		p.apply(row, s.now().UTC())
		switch {
		case newCover != "":
			oldCover, row.CoverKey = row.CoverKey, newCover
		case in.RemoveCover:
			oldCover, row.CoverKey = row.CoverKey, ""
		}
	}
	var row PostRow
	if p.slug == slug {
		row, err = s.cards.Change(ctx, postsPart, slug, ErrNoPost, live(func(row *PostRow) error {
			oldCover = ""
			edit(row)
			return nil
		}))
	} else {
		row, err = s.move(ctx, old, p.slug, edit)
	}
	if err != nil && !errors.Is(err, projection.ErrBehind) {
		s.pictures.Delete(ctx, newCover)
		if errors.Is(err, storage.ErrExists) {
			err = FieldErrors{"slug": "blog.error.slug_taken"}
		}
		return row, err
	}
	s.pictures.Delete(ctx, oldCover)
	s.queueAnnouncement(ctx, row)
	return row, s.behind(ctx, err, row.RowKey)
}

// behind logs a write whose post stands but whose cards did not follow
// (web reindex blog finishes them): the writer's change is saved.
func (s *Service) behind(ctx context.Context, err error, slug string) error {
	return projection.Stood(ctx, s.log, err, "blog: cards not written", "post", slug)
}

// move writes a draft at a new address: one transaction deletes the old
// row (at its ETag) and inserts the new, then the cards follow.
func (s *Service) move(ctx context.Context, old PostRow, slug string, edit func(*PostRow)) (PostRow, error) {
	row := old
	edit(&row)
	row.RowKey, row.ETag, row.Listed = slug, "", ""
	if err := s.cards.Intend(&row); err != nil {
		return PostRow{}, err
	}
	var tx storage.Tx
	tx.Delete(postsPart, old.RowKey, old.ETag).Insert(row)
	if err := tx.Commit(ctx, s.posts); err != nil {
		return PostRow{}, err
	}
	if err := s.cards.Sync(ctx, &old, nil); err != nil {
		return row, errors.Join(projection.ErrBehind, err)
	}
	if err := s.cards.Sync(ctx, nil, &row); err != nil {
		return row, errors.Join(projection.ErrBehind, err)
	}
	return row, nil
}

// Post reads the post at slug (one being deleted is not there).
func (s *Service) Post(ctx context.Context, slug string) (PostRow, error) {
	p, err := s.stored(ctx, slug)
	if err == nil && p.Deleted {
		return PostRow{}, ErrNoPost
	}
	return p, err
}

// stored reads the post row at slug as it stands, one being deleted too.
func (s *Service) stored(ctx context.Context, slug string) (PostRow, error) {
	if !formrule.IsSlug(slug, maxSlugLength) {
		return PostRow{}, ErrNoPost
	}
	return storage.Find[PostRow](ctx, s.posts, postsPart, slug, ErrNoPost)
}

// live is change for a post that is not being deleted; one that is, is
// ErrNoPost.
func live(change func(p *PostRow) error) func(p *PostRow) error {
	return func(p *PostRow) error {
		if p.Deleted {
			return ErrNoPost
		}
		return change(p)
	}
}

// Visible reports whether readers who are not admins see p at now.
func (p PostRow) Visible(now time.Time) bool { return p.Published && !p.PublishAt.After(now) }

// Unpublish makes a post a draft again: it leaves the listings, and
// only admins reach its page.
func (s *Service) Unpublish(ctx context.Context, slug string) (PostRow, error) {
	if !formrule.IsSlug(slug, maxSlugLength) {
		return PostRow{}, ErrNoPost
	}
	row, err := s.cards.Change(ctx, postsPart, slug, ErrNoPost, live(func(row *PostRow) error {
		if !row.Published {
			return storage.ErrNoChange
		}
		row.Published, row.UpdatedAt = false, s.now().UTC()
		return nil
	}))
	return row, s.behind(ctx, err, slug)
}

// Delete removes post p, as its route read it, for good. A burial is
// queued first (due in buryLater), so a delete cut short at any later
// step finishes by itself. Then the post is marked deleted, the
// canonical write: from then on it is gone for everyone and its cards
// go. Then what it leaves goes, and its row last (bury). Deleting the
// post again, or web reindex blog, finishes one whose burial was not
// queued; until then its leftovers are logged and the delete stands.
func (s *Service) Delete(ctx context.Context, p PostRow) error {
	s.queueBurial(ctx, p)
	row, err := s.cards.Change(ctx, postsPart, p.RowKey, ErrNoPost, func(r *PostRow) error {
		switch {
		case r.ID != p.ID:
			return ErrNoPost // another post took the address since
		case r.Deleted:
			return storage.ErrNoChange
		}
		r.Deleted, r.UpdatedAt = true, s.now().UTC()
		return nil
	})
	if err := s.behind(ctx, err, p.RowKey); err != nil {
		return err
	}
	if err := s.bury(ctx, row); err != nil {
		s.log.WarnContext(ctx, "blog: a deleted post's comments stay", "post", p.RowKey, "err", err)
	}
	return nil
}

// buryLater is when a deleted post's queued burial runs, in case the
// delete's own did not finish (Delete); it also sweeps what raced the
// delete (a comment or a picture written as the post went).
const buryLater = time.Minute

// burial is the task that finishes deleting the post with ID at Slug.
type burial struct{ Slug, ID string }

// queueBurial queues the burial of p, about to be marked deleted: keyed
// by the try, since a burial that found its post not marked (its mark
// failed) is done, and the next try needs its own. A failure is logged
// (deleting the post again, or web reindex blog, finishes it).
func (s *Service) queueBurial(ctx context.Context, p PostRow) {
	s.burials.Later(ctx, s.now().Add(buryLater), p.ID, burial{Slug: p.RowKey, ID: p.ID}, s.log, "blog: a deleted post's burial not queued", "post", p.RowKey)
}

// buryQueued runs a burial: a post marked deleted is buried, and what
// hangs on the id of one whose row is gone (or whose address another
// post took since) goes, unless a post of that id lives at another
// address. A post not marked is one whose mark failed: nothing goes.
func (s *Service) buryQueued(ctx context.Context, b burial) error {
	p, err := s.stored(ctx, b.Slug)
	switch {
	case err == nil && p.ID == b.ID && p.Deleted:
		return s.bury(ctx, p)
	case err == nil && p.ID == b.ID:
		return nil
	case err == nil, errors.Is(err, ErrNoPost):
		// A draft keeps its id when it moves: one whose mark failed, or
		// that moved before it, lives at its new address with what hangs
		// on it (one query of the posts, which a move changes in one
		// transaction).
		_, err := storage.First[PostRow](ctx, s.posts, storage.Query{
			PartitionKey: postsPart, Filters: []storage.Filter{{Name: "id", Op: storage.Eq, Value: b.ID}},
		}, nil, ErrNoPost)
		if errors.Is(err, ErrNoPost) {
			return s.forget(ctx, b.ID)
		}
		return err
	}
	return err
}

// bury removes what post p, marked deleted, leaves, then its row: each
// step may run again, and the row, which names the rest, goes last.
func (s *Service) bury(ctx context.Context, p PostRow) error {
	if err := s.forget(ctx, p.ID); err != nil {
		return err
	}
	return s.behind(ctx, s.cards.Delete(ctx, p), p.RowKey)
}

// forget removes what the post with id leaves when it goes: every
// picture in its folder (its cover, its text's, any an upload cut short
// left) and its comments.
func (s *Service) forget(ctx context.Context, id string) error {
	if err := s.pictures.DeleteAll(ctx, id); err != nil {
		return err
	}
	return s.comments.DeleteAll(ctx, id)
}

// Page is one page of cards.
type Page = storage.Rows[CardRow]

// List reads a page of the published posts (of a tag, when tag is not
// ""), newest first, from now on back: one query of one partition. Posts
// scheduled for later are ahead of now in the index and not reached.
func (s *Service) List(ctx context.Context, tag string, limit int, next *storage.Continuation) (Page, error) {
	pk := allPart
	if tag != "" {
		pk = tagPart(tag)
	}
	return s.page(ctx, storage.Query{PartitionKey: pk, RowKeyFrom: storage.ReverseTicks(s.now()), Limit: limit, Continuation: next}, limit)
}

// Unlisted are what admins see of the posts readers do not: the
// scheduled ones (soonest first) and the drafts (by address), at most
// limit of each.
func (s *Service) Unlisted(ctx context.Context, limit int) (scheduled, drafts []CardRow, err error) {
	scheduled, _, err = storage.Take[CardRow](ctx, s.index, storage.Query{PartitionKey: allPart, RowKeyTo: storage.ReverseTicks(s.now()), Limit: limit}, limit)
	if err != nil {
		return nil, nil, err
	}
	slices.Reverse(scheduled)
	drafts, _, err = storage.Take[CardRow](ctx, s.index, storage.Query{PartitionKey: draftPart, Limit: limit}, limit)
	return scheduled, drafts, err
}

// page reads at most limit cards of q.
func (s *Service) page(ctx context.Context, q storage.Query, limit int) (Page, error) {
	return storage.TakeRows[CardRow](ctx, s.index, q, limit)
}
