package people

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/people"
)

// handlers are the People pages: each parses the request, calls the
// service and renders.
type handlers struct {
	svc *Service
}

// ErrBadFilter is a Discover filter out of range (400).
var ErrBadFilter = errors.New("people: bad filter")

// filterOf is Discover's filter: the query's, else the viewer's
// preferences. A value out of range is a 400, which says what is
// allowed.
func (h *handlers) filterOf(c echo.Context, me string) (Filter, error) {
	ctx := c.Request().Context()
	prefs, err := h.svc.accounts.Preferences(ctx, me)
	if err != nil {
		return Filter{}, err
	}
	f := Filter{ShowMe: prefs.ShowMe, MinAge: prefs.AgeRangeMin, MaxAge: prefs.AgeRangeMax}
	q := c.QueryParams()
	bad := func() error {
		return web.BadRequest(i18n.T(ctx, "people.error.filter", "min", strconv.Itoa(account.MinPeopleAge), "max", strconv.Itoa(account.MaxAge)), ErrBadFilter)
	}
	if v := q.Get("show"); v != "" {
		if !slices.Contains(account.ShowMeOptions, v) {
			return Filter{}, bad()
		}
		f.ShowMe = v
	}
	for _, p := range []struct {
		name string
		to   *int
	}{{"min", &f.MinAge}, {"max", &f.MaxAge}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < account.MinPeopleAge || n > account.MaxAge {
				return Filter{}, bad()
			}
			*p.to = n
		}
	}
	f.MinAge = max(f.MinAge, account.MinPeopleAge)
	if f.MinAge > f.MaxAge {
		return Filter{}, bad()
	}
	// The distance: the query's ("" for anywhere), else the preference.
	f.WithinKm = prefs.MaxDistanceKm
	if q.Has("km") {
		f.WithinKm = 0
		if v := q.Get("km"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < account.MinDistanceKm || n > account.MaxDistanceKm {
				return Filter{}, web.BadRequest(i18n.T(ctx, "people.error.km", "min", strconv.Itoa(account.MinDistanceKm), "max", strconv.Itoa(account.MaxDistanceKm)), ErrBadFilter)
			}
			f.WithinKm = n
		}
	}
	return f, nil
}

// joinOf is the viewer's place in People.
func (h *handlers) joinOf(ctx context.Context, me string) (views.Join, *account.Point, error) {
	row, err := h.svc.accounts.InPeople(ctx, me)
	if err == nil {
		return views.Join{In: true}, row.Point(), nil
	}
	if !errors.Is(err, account.ErrNotInPeople) {
		return views.Join{}, nil, err
	}
	entry, err := h.svc.accounts.DirectoryEntry(ctx, me)
	if err != nil || entry.PeopleBarred {
		return views.Join{Barred: entry.PeopleBarred}, entry.Point(), err
	}
	settings, err := h.svc.accounts.Settings(ctx, me)
	if err != nil {
		return views.Join{}, nil, err
	}
	age, ok := account.AgeOn(entry.BirthDate, h.svc.now().UTC())
	return views.Join{Private: settings.ProfileVisibility == account.VisibilityPrivate, NeedsAge: !ok || age < account.MinPeopleAge}, entry.Point(), nil
}

// viewer is where the viewer stands in People: their own place, and
// their likes, matches and blocks.
func (h *handlers) viewer(ctx context.Context, me string) (views.Join, Standing, error) {
	join, at, err := h.joinOf(ctx, me)
	if err != nil {
		return views.Join{}, Standing{}, err
	}
	st, err := h.svc.StandingOf(ctx, me)
	st.Near = at
	return join, st, err
}

// tabs are the tabs' counts from the viewer's standing: the likes not
// yet returned (anonymous ones too), and the matches that stand.
func tabs(current string, st Standing) views.Tabs {
	return views.Tabs{Current: current, Likes: len(st.open(st.Received)), Matches: len(st.standing())}
}

// card is a person as the views show them; back is where a plain like
// form returns.
func card(ctx context.Context, p Person, back string) views.Card {
	c := views.Card{
		Key: p.RowKey, Name: p.DisplayName, URL: auth.ProfileURL(p.RowKey),
		PhotoURL: cardPhotoURL(p.DirectoryRow),
		Age:      p.Age, Location: p.Location, Bio: p.Bio, Answers: cardAnswers(ctx, p.Answers),
		Liked: p.Mine != nil, LikesYou: p.Theirs != nil, Matched: p.Matched,
		Back: back,
	}
	if p.Theirs != nil {
		c.Comment = p.Theirs.Comment
		if p.Theirs.About != "" && slices.Contains(Questions, p.Theirs.About) {
			c.LikedAnswer = &views.CardAnswer{ID: p.Theirs.About, Question: i18n.T(ctx, "people.question."+p.Theirs.About), Text: p.Theirs.AboutText}
		} else if strings.HasPrefix(p.Theirs.About, photoAbout) && p.Theirs.AboutText != "" {
			c.LikedPhoto = photoURL(pictures.Small(p.Theirs.AboutText))
		}
	}
	if !p.At.IsZero() {
		c.When = i18n.Date(ctx, p.At)
	}
	c.Km, c.Located = p.Km, p.Located
	return c
}

// cardPhotoURL is the photo a card leads with: the first People photo,
// else the profile's.
func cardPhotoURL(r account.DirectoryRow) string {
	if r.CardPhoto != "" {
		return photoURL(pictures.Small(r.CardPhoto))
	}
	return account.PhotoURL(r.RowKey, r.PhotoKey)
}

// discover is GET /people[?show=&min=&max=&cursor=]; a visitor (or a
// guest) is told what People is, and asked to sign in.
func (h *handlers) discover(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.Account(c)
	if id == nil {
		return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "module.people.name"), Section: "people", Content: views.Welcome(auth.SignInPath(DiscoverURL))})
	}
	me := id.MemberKey
	f, err := h.filterOf(c, me)
	if err != nil {
		return err
	}
	query := discoverQuery(f)
	cursor, err := web.ReadCursor(c, h.svc.cursors, query)
	if err != nil {
		return err
	}
	join, st, err := h.viewer(ctx, me)
	if err != nil {
		return err
	}
	f.Near = st.Near
	page, err := h.svc.Discover(ctx, me, f, st, cursor)
	if err != nil {
		return err
	}
	v := views.DiscoverProps{
		Tabs: tabs("discover", st), Join: join,
		Filter: views.FilterProps{
			ShowMe: f.ShowMe, Options: account.ShowMeOptions, MinAge: f.MinAge, MaxAge: f.MaxAge, Lowest: account.MinPeopleAge, Oldest: account.MaxAge,
			Located: st.Near != nil, WithinKm: f.WithinKm, MinKm: account.MinDistanceKm, MaxKm: account.MaxDistanceKm,
		},
	}
	if st.Near == nil {
		v.Filter.Cities = cityOptions(ctx)
	}
	v.Skipped = page.Skipped
	back := c.Request().URL.RequestURI()
	for _, p := range page.People {
		v.People = append(v.People, card(ctx, p, back))
	}
	if page.Next != nil {
		token := h.svc.cursors.Encode(query, *page.Next)
		v.NextURL = "/people?" + withCursor(filterQuery(f), token)
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "module.people.name"), Section: "people", Content: views.Discover(v)})
}

// filterQuery is a filter as Discover's query string.
func filterQuery(f Filter) url.Values {
	km := ""
	if f.WithinKm > 0 {
		km = strconv.Itoa(f.WithinKm)
	}
	return url.Values{"show": {f.ShowMe}, "min": {strconv.Itoa(f.MinAge)}, "max": {strconv.Itoa(f.MaxAge)}, "km": {km}}
}

// withCursor is q with the next page's token.
func withCursor(q url.Values, token string) string {
	q.Set(web.CursorParam, token)
	return q.Encode()
}

// discoverQuery names a filter's listing for its cursors, so a token of
// one filter does not page another.
func discoverQuery(f Filter) string { return "people|" + filterQuery(f).Encode() }

// joinFlash is what showing (true) or hiding oneself says.
var joinFlash = map[bool]string{true: "people.flash.shown", false: "people.flash.hidden"}

// join is POST /people/me (on=true|false): show the viewer in People,
// or take them out.
func (h *handlers) join(c echo.Context) error {
	on, err := web.FormChoice(c, "on", map[string]bool{"true": true, "false": false}, "people.error.join_value")
	if err != nil {
		return err
	}
	if _, err := h.svc.accounts.SetInPeople(c.Request().Context(), auth.From(c).MemberKey, on); err != nil {
		return err
	}
	return web.FlashRedirect(c, joinFlash[on], DiscoverURL)
}

// place is POST /people/me/place (city, or lat and lon): where the
// viewer is, a city chosen or the browser's location, for People's
// distances; a city not offered or a bad point is a 400 and writes
// nothing, and a place past PlacesPerDay a 429.
func (h *handlers) place(c echo.Context) error {
	ctx, me := c.Request().Context(), auth.From(c).MemberKey
	at, err := placeOf(c.FormValue("city"), c.FormValue("lat"), c.FormValue("lon"))
	if err != nil {
		return err
	}
	if err := h.svc.placeLimit().Take(ctx, placeQuotaKey(me), h.svc.now()); err != nil {
		return err
	}
	if _, err := h.svc.accounts.SetPoint(ctx, me, &at); err != nil {
		return err
	}
	return web.FlashRedirect(c, "people.flash.place_set", DiscoverURL)
}

// placeOf is the point a place form sends: the city chosen, else the
// browser's latitude and longitude; neither is no city chosen.
func placeOf(city, lat, lon string) (account.Point, error) {
	if city != "" || lat == "" && lon == "" {
		c, err := account.CityOf(city)
		return c.Point(), err
	}
	return account.ParsePoint(lat, lon)
}

// cityOptions are the cities one may choose, in the request's language.
func cityOptions(ctx context.Context) []components.Option {
	lang := string(i18n.LangOf(ctx))
	var out []components.Option
	for _, c := range account.CitiesIn(lang) {
		out = append(out, components.Option{Value: c.ID, Label: c.Name(lang)})
	}
	return out
}

// forgetPlace is POST /people/me/place/forget: the viewer's point goes.
func (h *handlers) forgetPlace(c echo.Context) error {
	if _, err := h.svc.accounts.SetPoint(c.Request().Context(), auth.From(c).MemberKey, nil); err != nil {
		return err
	}
	return web.FlashRedirect(c, "people.flash.place_forgotten", DiscoverURL)
}

// tab is a page of the viewer's own (likes, matches, skipped): page gets
// who they are, their banner and their standing, read once (viewer).
func (h *handlers) tab(page func(c echo.Context, me string, join views.Join, st Standing) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		me := auth.From(c).MemberKey
		join, st, err := h.viewer(c.Request().Context(), me)
		if err != nil {
			return err
		}
		return page(c, me, join, st)
	}
}

// likes is GET /people/likes.
func (h *handlers) likes(c echo.Context, me string, join views.Join, st Standing) error {
	ctx := c.Request().Context()
	l, err := h.svc.LikesOf(ctx, me, st)
	if err != nil {
		return err
	}
	v := views.LikesProps{Tabs: tabs("likes", st), Join: join, Anonymous: l.Anonymous}
	for _, p := range l.You {
		v.You = append(v.You, card(ctx, p, LikesURL))
	}
	for _, p := range l.Sent {
		v.Sent = append(v.Sent, card(ctx, p, LikesURL))
	}
	var liked []*views.Card
	for i := range v.You {
		liked = append(liked, &v.You[i])
	}
	for i := range v.Sent {
		liked = append(liked, &v.Sent[i])
	}
	if err := h.svc.photosStillThere(ctx, me, liked); err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "people.tab.likes"), Section: "people", Content: views.Likes(v)})
}

// matchesPage is GET /people/matches.
func (h *handlers) matchesPage(c echo.Context, me string, _ views.Join, st Standing) error {
	ctx := c.Request().Context()
	ms, err := h.svc.Matches(ctx, me, st)
	if err != nil {
		return err
	}
	v := views.MatchesProps{Tabs: tabs("matches", st), MessageAction: h.svc.messageAction}
	for _, p := range ms {
		v.Matches = append(v.Matches, card(ctx, p, MatchesURL))
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "people.tab.matches"), Section: "people", Content: views.Matches(v)})
}

// like is POST /people/:member/like (comment): htmx gets the button
// back, pressed; a plain form goes back with the news.
func (h *handlers) like(c echo.Context) error {
	ctx := c.Request().Context()
	me, member := auth.From(c).MemberKey, c.Param("member")
	res, err := h.svc.LikeAbout(ctx, me, member, c.FormValue("comment"), c.FormValue("about"))
	if err != nil {
		return web.AnswerAction(c, err, "people.error.comment_invalid", "", "")
	}
	if res.Matched {
		// A match reloads the page (htmx too), which then shows it.
		return web.FlashRedirect(c, "people.flash.matched", web.NextOr(c, auth.ProfileURL(member)))
	}
	return h.answer(c, member, true, "people.flash.liked")
}

// unlike is POST /people/:member/unlike.
func (h *handlers) unlike(c echo.Context) error {
	member := c.Param("member")
	if err := h.svc.Unlike(c.Request().Context(), auth.From(c).MemberKey, member); err != nil {
		return err
	}
	return h.answer(c, member, false, "people.flash.unliked")
}

// answer finishes a like or an unlike: htmx gets the like button as it
// now stands, a plain form goes back with flash.
func (h *handlers) answer(c echo.Context, member string, liked bool, flash string) error {
	to := web.NextOr(c, auth.ProfileURL(member))
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, http.StatusOK, views.LikeButton(h.named(c, member, to, liked)))
	}
	return web.FlashRedirect(c, flash, to)
}

// named is member as a button's card: their name (for its accessible
// name; "" if the directory cannot say), liked or not, and back.
func (h *handlers) named(c echo.Context, member, back string, liked bool) views.Card {
	name := ""
	if entry, err := h.svc.accounts.DirectoryEntry(c.Request().Context(), member); err == nil {
		name = entry.DisplayName
	}
	return views.Card{Key: member, Name: name, URL: auth.ProfileURL(member), Liked: liked, Back: back}
}

// unmatch is POST /people/:member/unmatch, behind a confirmation.
func (h *handlers) unmatch(c echo.Context) error {
	member := c.Param("member")
	if !web.Confirmed(c) {
		// Asked of a match that stands alone.
		m, err := h.svc.matchWith(c.Request().Context(), auth.From(c).MemberKey, member)
		if err != nil {
			return err
		}
		if m == nil || !m.Active {
			return ErrNoMatch
		}
		return web.AskConfirm(c, h.unmatchConfirm(c, member))
	}
	if err := h.svc.Unmatch(c.Request().Context(), auth.From(c).MemberKey, member); err != nil {
		return err
	}
	return web.FlashRedirect(c, "people.flash.unmatched", MatchesURL)
}

// unmatchConfirm is the question an unmatch asks first, without
// JavaScript.
func (h *handlers) unmatchConfirm(c echo.Context, member string) components.ConfirmProps {
	name := member
	if entry, err := h.svc.accounts.DirectoryEntry(c.Request().Context(), member); err == nil {
		name = entry.DisplayName
	}
	return views.UnmatchProps(c.Request().Context(), auth.ProfileURL(member), name)
}

// Extra is People's part of a person's page (account.PersonExtra): how
// the viewer and they stand, and a like.
func (s *Service) Extra(ctx context.Context, viewer, member string) (templ.Component, error) {
	pair, err := s.PairOf(ctx, viewer, member)
	if err != nil || pair.Blocked {
		return nil, err
	}
	v := views.PersonProps{Ended: pair.Ended()}
	them, err := s.accounts.InPeople(ctx, member)
	switch {
	case err == nil:
		v.InPeople = true
	case errors.Is(err, account.ErrNotInPeople):
		if them, err = s.accounts.DirectoryEntry(ctx, member); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if _, err := s.accounts.InPeople(ctx, viewer); err == nil {
		v.ViewerIn = true
	} else if !errors.Is(err, account.ErrNotInPeople) {
		return nil, err
	}
	p := Person{DirectoryRow: them, Mine: pair.Mine, Matched: pair.Matched()}
	if pair.Theirs != nil && (!pair.Theirs.Anonymous || p.Matched) {
		p.Theirs = pair.Theirs
	}
	if !v.InPeople && !p.Matched && !v.Ended {
		return nil, nil
	}
	v.Card = card(ctx, p, auth.ProfileURL(member))
	photos, err := s.Photos(ctx, member)
	if err != nil {
		return nil, err
	}
	for _, ph := range photos {
		v.Photos = append(v.Photos, views.PersonPhoto{URL: photoURL(ph.Key), About: photoAbout + ph.RowKey})
	}
	if err := s.photosStillThere(ctx, viewer, []*views.Card{&v.Card}); err != nil {
		return nil, err
	}
	if s.Reports != nil && v.InPeople {
		v.ReportURL = reportURL(member)
	}
	v.CanBlock = s.blocks != nil
	return views.Person(v), nil
}

// photosPage is GET /people/photos: the viewer's People photos, to add,
// order and delete.
func (h *handlers) photosPage(c echo.Context) error {
	return h.renderPhotos(c, http.StatusOK, "")
}

// renderPhotos shows the photos page with status and a refusal's words
// ("" for none).
func (h *handlers) renderPhotos(c echo.Context, status int, problem string) error {
	ctx := c.Request().Context()
	rows, err := h.svc.Photos(ctx, auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	v := h.photos().Props(rows, photosURL, photoSmallURL, problem)
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "people.photos.heading"), Section: "people", Content: views.Photos(v)})
}

// photos is the photos page's editor (POST /people/photos, and
// …/:photo/delete and …/:photo/move): the viewer's own, whose first
// leads their card.
func (h *handlers) photos() gallery.Editor {
	return gallery.Editor{
		Gallery: h.svc.photos, Keys: "people.photos", Uploads: h.svc.uploads, MaxBytes: MaxPhotoBytes,
		Owner:   func(c echo.Context) (string, error) { return auth.From(c).MemberKey, nil },
		Back:    func(echo.Context) string { return photosURL },
		Page:    h.renderPhotos,
		Changed: h.svc.setCard,
	}
}

// servePhoto is GET /media/people/:member/:file: for people signed in,
// a photo of someone their page shows it to (Extra): someone shown in
// People, or matched with the viewer, now or before; or one's own.
// Someone who left People, or was taken out of it, is a 404 to anyone
// else, even to whoever kept the address; a browser may keep what it
// was shown, a shared cache may not.
func (h *handlers) servePhoto(c echo.Context) error {
	ctx, member, me := c.Request().Context(), c.Param("member"), auth.From(c).MemberKey
	if !auth.IsAuthMemberKey(member) {
		return storage.ErrNotFound
	}
	if member != me {
		_, err := h.svc.accounts.InPeople(ctx, member)
		if errors.Is(err, account.ErrNotInPeople) {
			var m *MatchRow
			if m, err = h.svc.match(ctx, me, member); err == nil && m == nil {
				err = storage.ErrNotFound
			}
		}
		if err != nil {
			return err
		}
	}
	blob, err := h.svc.PhotoBlob(ctx, member, c.Param("file"))
	if err != nil {
		return err
	}
	return web.ServePrivateImage(c, blob.Data)
}
