package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/taxonomy"
)

// Tables of the catalog.
const (
	EventsTable  = "Events"
	ByDateTable  = "EventsByDate"
	eventsPart   = "event"
	upcomingPart = "upcoming" // by start, ascending
	pastPart     = "past"     // by start, descending (inverted keys)
)

// Categories are the built-in ones (document 000); admins may add more
// later.
var Categories = []string{"concert", "meetup", "festival", "party", "yachting"}

// Event limits.
const (
	MaxTitle       = 120
	MinTitle       = 3
	MaxDescription = 20000
	MaxPlace       = 200
	MaxCapacity    = 100000
	MaxPriceCents  = 100_000_000
	MaxDays        = 31
)

// EventRow is an event (TABLES.md's Events, keyed here by id alone: an
// event's page is found by its id, and its category can change; the
// listing index carries the category).
type EventRow struct {
	PartitionKey string `table:"PartitionKey"` // "event"
	RowKey       string `table:"RowKey"`       // eventId (ULID)
	ETag         string `table:"ETag"`
	Card
	Description string `table:"description"` // Markdown
	Timezone    string `table:"timezone"`
	// ConfirmedOnly is shown only to people going: an online link, an
	// exact address.
	ConfirmedOnly string `table:"confirmedOnly"`
	MaxGuests     int    `table:"maxGuests"`
	// OfferHours is offer mode (0: off): a freed seat is offered to the
	// head of the waitlist for this many hours; offers stop
	// OfferStopHours before the start.
	OfferHours     int  `table:"offerHours"`
	OfferStopHours int  `table:"offerStopHours"`
	IsSecret       bool `table:"isSecret"`
	IsPublished    bool `table:"isPublished"`
	// TakenDown: the moderators took it down after a report (reports.go):
	// it is unpublished, and only an admin publishes it again.
	TakenDown bool `table:"takenDown"`
	// ChatClosedToWaitlist keeps people waiting out of the event's chat
	// (they read it otherwise).
	ChatClosedToWaitlist bool `table:"chatClosedToWaitlist"`
	// ShowGuests shows signed-in people who is going (guests.go).
	ShowGuests bool `table:"showGuests"`
	// RequireApproval makes each registration a request the organizers
	// approve or decline (Luma's "Require approval"). The seat counter's
	// Approval is canonical: SyncSeats copies it here.
	RequireApproval bool `table:"requireApproval"`
	// Questions are what guests answer when they register
	// (storedQuestions): one a line, or JSON when any offers choices or
	// is optional (questions.go).
	Questions    string `table:"questions"`
	OrganizerKey string `table:"organizerKey"`
	// CoHosts are the co-organizers' member keys, separated by ";", and
	// CoHostEmails their addresses as the form last named them
	// (cohosts.go).
	CoHosts      string `table:"coHosts"`
	CoHostEmails string `table:"coHostEmails"`
	// Sequence rises with every change of time or place (.ics SEQUENCE).
	Sequence  int       `table:"sequence"`
	CreatedAt time.Time `table:"createdAt"`
	UpdatedAt time.Time `table:"updatedAt"`
	// Listed records the EventsByDate rows last written for the event
	// (projection.Follow's record), so two seat syncs at once cannot
	// leave the older counts on its cards.
	Listed string `table:"listed"`
}

// Card is what the listing shows of an event. The event holds it, and
// its EventsByDate rows copy it (ListingRow), so a listing reads no event.
type Card struct {
	Title    string    `table:"title"`
	Category string    `table:"category"`
	Start    time.Time `table:"start"`
	End      time.Time `table:"end"`
	Place    string    `table:"place"`
	Capacity int       `table:"capacity"` // 0: no limit
	// Going and Waiting mirror the seat counter (seats taken, people
	// waiting) for the listing's badges: SyncSeats copies them after
	// each seat change; the counter in EventAttendees is canonical.
	Going      int    `table:"going"`
	Waiting    int    `table:"waiting"`
	PriceCents int64  `table:"priceCents"`
	Currency   string `table:"currency"`
	// ImageKey is the picture's blob name in ImagesContainer, "" for none.
	ImageKey    string `table:"imageKey"`
	IsCancelled bool   `table:"isCancelled"`
}

// ListingRow is an event's card in EventsByDate: listed while published
// and not secret, in the partitions of upcoming events (by start, from
// now on) and of past ones (newest first), across categories and within
// its own (listingKeys).
type ListingRow struct {
	PartitionKey string `table:"PartitionKey"` // listingPart
	RowKey       string `table:"RowKey"`       // listingKey
	ETag         string `table:"ETag"`
	EventID      string `table:"eventId"`
	Card
	// Draft and Secret mark the rows of the people who run the event
	// (organizingPart), which hold every event they run; the listing's
	// are neither.
	Draft  bool `table:"draft"`
	Secret bool `table:"secret"`
}

// startKey is a start's listing key part: it sorts as the time does.
func startKey(t time.Time) string { return t.UTC().Format("20060102150405") }

// pastKey sorts newest first: the start's seconds subtracted from a
// constant, zero-padded.
func pastKey(t time.Time) string {
	return fmt.Sprintf("%012d", int64(math.MaxInt32)*100-t.Unix())
}

// listingPart is the listing partition of upcoming or past events, of
// all categories ("") or of one.
func listingPart(past bool, category string) string {
	p := upcomingPart
	if past {
		p = pastPart
	}
	if category != "" {
		p += "|" + category
	}
	return p
}

// organizingPart is the partition of EventsByDate that holds the events
// memberKey runs (made, or co-organizes), published or not, newest start
// first (RowKey pastKey|eventId): the "Events you run" page reads it.
func organizingPart(memberKey string) string { return "org|" + memberKey }

// listingKeys are an event's listing keys: upcoming and past, across all
// categories and within its own, so every listing is one partition read
// in order, with no filter.
func listingKeys(e EventRow) [][2]string {
	var out [][2]string
	for _, cat := range []string{"", e.Category} {
		out = append(out,
			[2]string{listingPart(false, cat), startKey(e.Start) + "|" + e.RowKey},
			[2]string{listingPart(true, cat), pastKey(e.Start) + "|" + e.RowKey})
	}
	return out
}

// Catalog is the events, their listing index, and their seats.
type Catalog struct {
	events *storage.Table
	byDate *storage.Table
	// Categories are the built-in categories and the ones admins add
	// on /admin/event-categories (the taxonomy kit).
	Categories *taxonomy.List
	images     pictures.Store
	seats      *Seats
	listing    *projection.Projection[EventRow]
	log        *slog.Logger
	now        func() time.Time
}

// NewCatalog keeps the catalog in store.
func NewCatalog(store *storage.Store, now func() time.Time) *Catalog {
	c := &Catalog{events: store.Table(EventsTable), byDate: store.Table(ByDateTable), images: pictures.Store{Container: store.Container(ImagesContainer), Large: largeImageSide, Small: smallImageSide}, seats: NewSeats(store, nil, now), now: now}
	c.Categories = &taxonomy.List{
		Table: store.Table(CategoriesTable), Part: "category", BuiltIn: Categories, Labels: "events.category.",
		SlugMessage: "events.categories.error.slug", NameMessage: "events.categories.error.name",
		Exists: ErrCategoryExists, Missing: ErrNoCategory, Now: now,
	}
	c.listing = &projection.Projection[EventRow]{
		Canonical: c.events,
		Derived:   []*storage.Table{c.byDate},
		Recorded:  "listed",
		Rows: func(e EventRow) ([]projection.Row, error) {
			var keys [][2]string
			for _, k := range append([]string{e.OrganizerKey}, e.coHostKeys()...) {
				if k != "" && !memberdata.IsForgotten(k) {
					keys = append(keys, [2]string{organizingPart(k), pastKey(e.Start) + "|" + e.RowKey})
				}
			}
			runners := len(keys)
			if e.IsPublished && !e.IsSecret {
				keys = append(keys, listingKeys(e)...)
			}
			var rows []projection.Row
			for i, k := range keys {
				l := ListingRow{PartitionKey: k[0], RowKey: k[1], EventID: e.RowKey, Card: e.Card}
				if i < runners {
					l.Draft, l.Secret = !e.IsPublished, e.IsSecret
				}
				r, err := projection.RowOf(c.byDate, l)
				if err != nil {
					return nil, err
				}
				rows = append(rows, r)
			}
			return rows, nil
		},
	}
	return c
}

// Tables are the tables the catalog needs.
func (c *Catalog) Tables() []string {
	return []string{EventsTable, ByDateTable, AttendeesTable, UserEventsTable, CategoriesTable, memberdata.FootprintsTable}
}

// EventInput is the event form as typed.
type EventInput struct {
	Title          string `form:"title"`
	Description    string `form:"description"`
	Category       string `form:"category"`
	Start          string `form:"start"`
	End            string `form:"end"`
	Place          string `form:"place"`
	ConfirmedOnly  string `form:"confirmedOnly"`
	Capacity       string `form:"capacity"`
	MaxGuests      string `form:"maxGuests"`
	Price          string `form:"price"`
	Currency       string `form:"currency"`
	OfferHours     string `form:"offerHours"`
	OfferStopHours string `form:"offerStopHours"`
	Secret         bool   `form:"secret"`
	// ChatClosed keeps people waiting out of the event's chat.
	ChatClosed bool `form:"chatClosed"`
	// ShowGuests shows signed-in people who is going.
	ShowGuests bool `form:"showGuests"`
	// Approval makes registrations requests the organizers approve.
	Approval bool `form:"approval"`
	// Timezone, when set, is the zone the form's times are in (a copy
	// keeps its original's); "" is the organizer's own. CopyOf is the
	// event a copy's form came from, for its way back.
	Timezone string `form:"timezone"`
	CopyOf   string `form:"copyOf"`
	// Image is an uploaded picture (nil: keep the one there is);
	// RemoveImage drops the picture.
	Image       []byte
	RemoveImage bool `form:"removeImage"`
	// CoHosts are the co-organizers' addresses as typed; the service
	// resolves them (resolveCoHosts) into coHostKeys and coHostEmails, or
	// the key of what is wrong with them, which the form shows beside
	// the other fields' errors.
	CoHosts string `form:"coHosts"`
	// Question1 to Question3 are what guests answer when they register,
	// ChoicesN the answers question N offers (one a line; none: answered
	// in words), SeveralN whether guests may choose several of them, TickN
	// whether it is answered by ticking a box (terms to agree to, a yes)
	// and OptionalN whether it may be left unanswered (questions.go).
	Question1      string `form:"question1"`
	Question2      string `form:"question2"`
	Question3      string `form:"question3"`
	Choices1       string `form:"choices1"`
	Choices2       string `form:"choices2"`
	Choices3       string `form:"choices3"`
	Optional1      bool   `form:"optional1"`
	Optional2      bool   `form:"optional2"`
	Optional3      bool   `form:"optional3"`
	Several1       bool   `form:"several1"`
	Several2       bool   `form:"several2"`
	Several3       bool   `form:"several3"`
	Tick1          bool   `form:"tick1"`
	Tick2          bool   `form:"tick2"`
	Tick3          bool   `form:"tick3"`
	coHostKeys     []string
	coHostEmails   []string
	coHostsProblem string
}

// OfferHoldChoices are the offer holds the form offers, in hours (0:
// seats go to the waitlist at once); OfferStopChoices how long before
// the start offers stop.
var (
	OfferHoldChoices = []int{0, 2, 6, 12, 24, 48}
	OfferStopChoices = []int{1, 3, 6, 12, 24, 48}
)

// plan is the event's seat plan.
func (e EventRow) plan() Plan {
	p := Plan{Capacity: e.Capacity, Approval: e.RequireApproval}
	if e.OfferHours > 0 {
		p.OfferHold = time.Duration(e.OfferHours) * time.Hour
		p.OffersEnd = e.Start.Add(-time.Duration(e.OfferStopHours) * time.Hour)
	}
	return p
}

// FieldErrors maps a form field to the i18n key of what is wrong with
// it; returned as an error, nothing was written.
type FieldErrors = formrule.FieldErrors

var (
	titleRule = formrule.Text{Max: MaxTitle, Required: true}
	descRule  = formrule.Text{Max: MaxDescription, Multiline: true}
	placeRule = formrule.Text{Max: MaxPlace}
)

// ErrNoCategory is a category nobody made (404).
var ErrNoCategory = fault.NotFound("events: no such category", storage.ErrNotFound)

// ErrCategoryExists is an added category that is there already (a
// built-in one included).
var ErrCategoryExists = fault.New(http.StatusConflict, "events.categories.error.exists", "events: the category exists")

// Category is an event's category as pages show it (the taxonomy kit's
// term): a built-in one, or one admins added, in English and Russian.
type Category = taxonomy.Term

// CategoriesTable holds the categories admins add.
const CategoriesTable = "EventCategories"

// ErrNoEvent is a missing event (404).
var ErrNoEvent = fault.NotFound("events: no such event", storage.ErrNotFound)

// parseEvent checks the form: times are wall clock in zone, the category
// one of known.
func parseEvent(in EventInput, zone *time.Location, known []Category) (EventRow, FieldErrors) {
	errs := FieldErrors{}
	var e EventRow
	if e.Title = errs.Check("title", titleRule, in.Title, "events.error.title"); len([]rune(e.Title)) < MinTitle && e.Title != "" {
		errs["title"] = "events.error.title"
	}
	e.Description = errs.Check("description", descRule, in.Description, "events.error.description")
	e.Place = errs.Check("place", placeRule, in.Place, "events.error.place")
	e.CoHosts, e.CoHostEmails = strings.Join(in.coHostKeys, ";"), strings.Join(in.coHostEmails, ", ")
	if in.coHostsProblem != "" {
		errs["coHosts"] = in.coHostsProblem
	}
	e.ConfirmedOnly = errs.Check("confirmedOnly", placeRule, in.ConfirmedOnly, "events.error.place")
	if e.Category = strings.TrimSpace(in.Category); !slices.ContainsFunc(known, func(c Category) bool { return c.Slug == e.Category }) {
		errs["category"] = "events.error.category"
	}
	if in.Timezone != "" {
		// A copy's times are in its original's zone, which it keeps.
		z, ok := i18n.LoadZone(in.Timezone)
		if !ok || in.Timezone == "Local" {
			errs["start"] = "events.error.timezone"
			return EventRow{}, errs
		}
		zone = z
	}
	start, err := time.ParseInLocation("2006-01-02T15:04", strings.TrimSpace(in.Start), zone)
	if err != nil || formrule.CheckDate(start) != formrule.OK {
		errs["start"] = "events.error.start"
	}
	end, err := time.ParseInLocation("2006-01-02T15:04", strings.TrimSpace(in.End), zone)
	switch {
	case err != nil || formrule.CheckDate(end) != formrule.OK:
		errs["end"] = "events.error.end"
	case errs["start"] == "" && !end.After(start):
		errs["end"] = "events.error.end_before_start"
	case errs["start"] == "" && end.Sub(start) > MaxDays*24*time.Hour:
		errs["end"] = "events.error.too_long"
	}
	e.Start, e.End, e.Timezone = start.UTC(), end.UTC(), zone.String()
	e.Capacity = number(in.Capacity, 0, MaxCapacity, "capacity", errs)
	e.MaxGuests = number(in.MaxGuests, 0, MaxParty-1, "maxGuests", errs)
	if e.OfferHours = number(in.OfferHours, 0, 48, "offerHours", errs); !slices.Contains(OfferHoldChoices, e.OfferHours) {
		errs["offerHours"] = "events.error.offerHours"
	}
	if e.OfferHours > 0 {
		if e.OfferStopHours = number(in.OfferStopHours, 1, 48, "offerStopHours", errs); !slices.Contains(OfferStopChoices, e.OfferStopHours) {
			errs["offerStopHours"] = "events.error.offerStopHours"
		}
	}
	var priceOK, currencyOK bool
	e.PriceCents, e.Currency, priceOK, currencyOK = formrule.Money(in.Price, in.Currency, MaxPriceCents)
	if !priceOK {
		errs["price"] = "events.error.price"
	}
	if !currencyOK {
		errs["currency"] = "events.error.currency"
	}
	e.IsSecret, e.ChatClosedToWaitlist, e.ShowGuests, e.RequireApproval = in.Secret, in.ChatClosed, in.ShowGuests, in.Approval
	e.Questions = parseQuestions(in, errs)
	if len(errs) > 0 {
		return EventRow{}, errs
	}
	return e, nil
}

// number reads a whole number in [lo, hi]; "" is lo.
func number(v string, lo, hi int, field string, errs FieldErrors) int {
	v = strings.TrimSpace(v)
	if v == "" {
		return lo
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		errs[field] = "events.error." + field
	}
	return n
}

// Create adds an event by organizerKey, unpublished until Publish: its
// picture, its seat counter, the event row and (when listed) its listing
// rows. A bad form or picture writes nothing.
func (c *Catalog) Create(ctx context.Context, organizerKey string, in EventInput, zone *time.Location) (EventRow, error) {
	e, img, err := c.parseWithImage(ctx, in, zone)
	if err != nil {
		return EventRow{}, err
	}
	now := c.now().UTC()
	e.PartitionKey, e.RowKey, e.OrganizerKey, e.CreatedAt, e.UpdatedAt = eventsPart, ulid.Make().String(), organizerKey, now, now
	if img != nil {
		if e.ImageKey, err = c.images.Put(ctx, e.RowKey, *img); err != nil {
			return EventRow{}, err
		}
	}
	if err := c.seats.Open(ctx, e.RowKey, e.plan()); err != nil {
		c.images.Delete(ctx, e.ImageKey)
		return EventRow{}, err
	}
	if _, err := storage.Insert(ctx, c.events, e); err != nil {
		c.images.Delete(ctx, e.ImageKey)
		return EventRow{}, err
	}
	if err := c.listing.Sync(ctx, nil, &e); err != nil {
		return e, c.behind(ctx, fmt.Errorf("%w: %w", projection.ErrBehind, err), e.RowKey)
	}
	return e, nil
}

// behind is a write of an event that stands though its listing rows did
// not follow (projection.Stood; web reindex events finishes them).
func (c *Catalog) behind(ctx context.Context, err error, id string) error {
	return projection.Stood(ctx, c.log, err, "events: listing rows not written", "event", id)
}

// parseWithImage checks the form and its picture, if any: a refused
// picture is a field error like the others.
func (c *Catalog) parseWithImage(ctx context.Context, in EventInput, zone *time.Location) (EventRow, *media.Result, error) {
	known, err := c.Categories.All(ctx)
	if err != nil {
		return EventRow{}, nil, err
	}
	e, errs := parseEvent(in, zone, known)
	img, err := c.images.FormPicture(ctx, in.Image, "image", &errs)
	if err != nil {
		return EventRow{}, nil, err
	}
	if errs != nil {
		return EventRow{}, nil, errs
	}
	return e, img, nil
}

// Event reads one event.
func (c *Catalog) Event(ctx context.Context, id string) (EventRow, error) {
	if !storage.IsID(id) {
		return EventRow{}, ErrNoEvent
	}
	e, err := storage.Find[EventRow](ctx, c.events, eventsPart, id, ErrNoEvent)
	return e, err
}

// change applies f to an event under its ETag, then brings its listing
// rows in step (projection.Change; a crash between is Repair's). f
// returning storage.ErrNoChange writes nothing.
func (c *Catalog) change(ctx context.Context, id string, f func(e *EventRow) error) (EventRow, error) {
	if !storage.IsID(id) {
		return EventRow{}, ErrNoEvent
	}
	e, err := c.listing.Change(ctx, eventsPart, id, ErrNoEvent, func(e *EventRow) error {
		if err := f(e); err != nil {
			return err
		}
		e.UpdatedAt = c.now().UTC()
		return nil
	})
	return e, c.behind(ctx, err, id)
}

// Publish lists an event (unless secret) and opens its registration.
func (c *Catalog) Publish(ctx context.Context, id string, published bool) (EventRow, error) {
	return c.change(ctx, id, func(e *EventRow) error {
		if published && e.TakenDown {
			return ErrTakenDown
		}
		e.IsPublished = published
		return nil
	})
}

// ErrTakenDown refuses publishing an event the moderators took down
// (403): only an admin does (Reinstate).
var ErrTakenDown = fault.New(http.StatusForbidden, "events.error.taken_down", "events: taken down by the moderators")

// TakeDown unpublishes an event the moderators judged against the rules
// and bars its organizers from publishing it again.
func (c *Catalog) TakeDown(ctx context.Context, id string) (EventRow, error) {
	return c.change(ctx, id, func(e *EventRow) error {
		e.IsPublished, e.TakenDown = false, true
		return nil
	})
}

// Reinstate publishes an event taken down: an admin's undoing of it.
func (c *Catalog) Reinstate(ctx context.Context, id string) (EventRow, error) {
	return c.change(ctx, id, func(e *EventRow) error {
		e.IsPublished, e.TakenDown = true, false
		return nil
	})
}

// Update changes an event's fields; a change of time or place raises its
// SEQUENCE. Its capacity and offer mode go through the seat counter
// (raising the capacity promotes from the waitlist, lowering it below
// the seats taken is refused before anything is written).
func (c *Catalog) Update(ctx context.Context, id string, in EventInput, zone *time.Location) (EventRow, Moves, error) {
	f, img, err := c.parseWithImage(ctx, in, zone)
	if err != nil {
		return EventRow{}, Moves{}, err
	}
	if !storage.IsID(id) {
		return EventRow{}, Moves{}, ErrNoEvent
	}
	moves, err := c.seats.SetPlan(ctx, id, f.plan())
	if err != nil {
		return EventRow{}, Moves{}, err
	}
	newKey, oldKey := "", ""
	if img != nil {
		if newKey, err = c.images.Put(ctx, id, *img); err != nil {
			return EventRow{}, moves, err
		}
	}
	e, err := c.change(ctx, id, func(e *EventRow) error {
		if !e.Start.Equal(f.Start) || !e.End.Equal(f.End) || e.Place != f.Place || e.ConfirmedOnly != f.ConfirmedOnly {
			e.Sequence++
		}
		e.Title, e.Description, e.Category, e.Start, e.End, e.Timezone = f.Title, f.Description, f.Category, f.Start, f.End, f.Timezone
		e.Place, e.ConfirmedOnly, e.Capacity, e.MaxGuests = f.Place, f.ConfirmedOnly, f.Capacity, f.MaxGuests
		e.OfferHours, e.OfferStopHours = f.OfferHours, f.OfferStopHours
		oldKey = ""
		switch {
		case newKey != "":
			oldKey, e.ImageKey = e.ImageKey, newKey
		case in.RemoveImage:
			oldKey, e.ImageKey = e.ImageKey, ""
		}
		e.PriceCents, e.Currency, e.IsSecret, e.ChatClosedToWaitlist = f.PriceCents, f.Currency, f.IsSecret, f.ChatClosedToWaitlist
		e.ShowGuests, e.RequireApproval = f.ShowGuests, f.RequireApproval
		e.CoHosts, e.CoHostEmails, e.Questions = f.CoHosts, f.CoHostEmails, f.Questions
		return nil
	})
	if err != nil {
		c.images.Delete(ctx, newKey)
		return e, moves, err
	}
	c.images.Delete(ctx, oldKey)
	return e, moves, nil
}

// Cancel marks an event cancelled: it stays listed, marked.
func (c *Catalog) Cancel(ctx context.Context, id string) (EventRow, error) {
	return c.change(ctx, id, func(e *EventRow) error {
		e.cancel()
		return nil
	})
}

// cancel marks e cancelled, a change of its .ics (SEQUENCE).
func (e *EventRow) cancel() {
	if !e.IsCancelled {
		e.IsCancelled, e.Sequence = true, e.Sequence+1
	}
}

// ListPage is one page of a listing.
type ListPage = storage.Rows[ListingRow]

// List reads a page of upcoming events (from now, by start) or past ones
// (newest first), optionally of one category: one query of one
// partition, whatever the number of events, with no filter.
func (c *Catalog) List(ctx context.Context, past bool, category string, limit int, next *storage.Continuation) (ListPage, error) {
	now := c.now()
	from := startKey(now)
	if past {
		from = pastKey(now)
	}
	return c.listPage(ctx, storage.Query{PartitionKey: listingPart(past, category), RowKeyFrom: from, Limit: limit, Continuation: next})
}

// Organizing is a page of the events memberKey runs (made or
// co-organizes), published or not, newest start first: one query.
func (c *Catalog) Organizing(ctx context.Context, memberKey string, limit int, next *storage.Continuation) (ListPage, error) {
	return c.listPage(ctx, storage.Query{PartitionKey: organizingPart(memberKey), Limit: limit, Continuation: next})
}

// listPage reads one page of listing rows.
func (c *Catalog) listPage(ctx context.Context, q storage.Query) (ListPage, error) {
	page, err := c.byDate.Query(ctx, q)
	if err != nil {
		return ListPage{}, err
	}
	out := ListPage{Next: page.Next}
	for _, e := range page.Entities {
		var r ListingRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return ListPage{}, err
		}
		out.Rows = append(out.Rows, r)
	}
	return out, nil
}

// SyncSeats copies the event's seat counter into its row and its
// listing cards, after a seat change committed (and whether it needs
// approval, which an edit commits to the counter first too). Each attempt reads the
// event before the counter, so whichever sync writes last wrote counts
// at least as new as every change before it; a failure leaves the badge
// stale until the next change or RebuildListing. The capacity is the
// counter's too: an edit commits it there first (Update), so a row
// that missed it (a crash between, or two organizers saving at once)
// says the seats the counter enforces.
func (c *Catalog) SyncSeats(ctx context.Context, id string) (EventRow, error) {
	return c.change(ctx, id, func(e *EventRow) error {
		s, err := c.seats.Counts(ctx, id)
		if err != nil {
			return err
		}
		if e.counted(s) {
			return storage.ErrNoChange
		}
		e.Going, e.Waiting, e.Capacity, e.RequireApproval = s.Going, s.Waiting, s.Capacity, s.Approval
		return nil
	})
}

// counted reports whether the event's row says the seats its counter s
// does.
func (e EventRow) counted(s SeatsRow) bool {
	return e.Going == s.Going && e.Waiting == s.Waiting && e.Capacity == s.Capacity && e.RequireApproval == s.Approval
}

// syncCounted brings e's seat counts in step with its counter s as a
// scan read it: only where they differ, SyncSeats reads both again and
// writes. ok is false when the event is gone since.
func (c *Catalog) syncCounted(ctx context.Context, e EventRow, s SeatsRow) (synced EventRow, ok bool, err error) {
	if e.counted(s) {
		return e, true, nil
	}
	synced, err = c.SyncSeats(ctx, e.RowKey)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return e, false, nil
	case err != nil:
		return e, false, fmt.Errorf("events: seats of %s: %w", e.RowKey, err)
	}
	return synced, true, nil
}

// RebuildListing recomputes EventsByDate from Events and then copies
// every event's seat counts from its counter where they differ
// (syncCounted, which moves the event's cards too). The counters are
// read in one scan of their rows, not one read an event.
func (c *Catalog) RebuildListing(ctx context.Context) (projection.Report, error) {
	rep, all, err := c.rebuildListing(ctx)
	if err != nil {
		return rep, err
	}
	at := byID(all)
	err = c.seats.table.QueryAll(ctx, storage.Query{Scan: true, RowKeyPrefix: seatsRowKey}, func(en storage.Entity) error {
		i, ok := at[en.PartitionKey]
		if !ok {
			return nil // the counter of an event gone
		}
		var s SeatsRow
		if err := storage.Unmarshal(en, &s); err != nil {
			return err
		}
		_, _, err := c.syncCounted(ctx, all[i], s)
		return err
	})
	return rep, err
}

// rebuildListing is RebuildListing but for the seat counts, and it
// returns the events as its scan read them: the rest of the events
// rebuild works from them, so Events is read once. It holds the events
// (one row each, as the kit holds their listing rows), never their
// registrations.
func (c *Catalog) rebuildListing(ctx context.Context) (projection.Report, []EventRow, error) {
	var all []EventRow
	var bad error
	rep, err := tapped(c.listing, func(en storage.Entity) {
		if en.PartitionKey != eventsPart || bad != nil {
			return
		}
		var e EventRow
		if bad = storage.Unmarshal(en, &e); bad == nil {
			all = append(all, e)
		}
	}).Rebuild(ctx)
	if err == nil {
		err = bad
	}
	return rep, all, err
}

// byID indexes events by their ids.
func byID(events []EventRow) map[string]int {
	at := make(map[string]int, len(events))
	for i, e := range events {
		at[e.RowKey] = i
	}
	return at
}

// tapped is p with see called on every row the scan of its Rebuild
// reads from the canonical table, in the scan's order (the kit passes
// each through Canon), before p's own Canon: the rest of a rebuild
// works from the rows the kit read, so the table is read once.
func tapped[C any](p *projection.Projection[C], see func(storage.Entity)) *projection.Projection[C] {
	scan := *p
	scan.Canon = func(e storage.Entity) bool {
		see(e)
		return p.Canon == nil || p.Canon(e)
	}
	return &scan
}

// RepairListing rewrites one event's listing rows from the stored event.
func (c *Catalog) RepairListing(ctx context.Context, id string) error {
	return c.listing.Repair(ctx, eventsPart, id)
}
