package chat

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
	"github.com/harmony/harmony/views/components"
)

// pageSize is how many messages a chat page shows.
const pageSize = 50

// requireChat authorizes the route's chat (:id) for the asker, once, and
// keeps its Access for the handler (accessOf); a chat they may not read
// is the same 404 as one that is not there.
func (s *Service) requireChat() echo.MiddlewareFunc {
	return chatScope.Require(func(c echo.Context) (Access, error) {
		return s.Open(c.Request().Context(), auth.From(c), c.Param("id"))
	})
}

// chatScope carries the Access requireChat worked out to the handler.
var chatScope = web.NewScope[Access]("chat.access")

// accessOf is the Access requireChat worked out.
func accessOf(c echo.Context) Access { return chatScope.From(c) }

func chatURL(id string) string { return "/chat/" + url.PathEscape(id) }

// list is GET /chat: the rooms and the viewer's other chats, most
// recent first, each with its last message and what the viewer has not
// read. A visitor is asked to sign in.
func (s *Service) list(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.Account(c)
	if id == nil {
		rooms, err := s.publicRooms(ctx)
		if err != nil {
			return err
		}
		var names []string
		for _, r := range rooms {
			names = append(names, "#"+r.Name)
		}
		return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "chat.list.heading"), Section: "chat", Content: views.Welcome(auth.SignInPath("/chat"), names)})
	}
	rooms, mine, rowOf, err := s.chatsOf(ctx, id.MemberKey, storage.Query{})
	if err != nil {
		return err
	}
	blocked, err := s.Blocked(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	items, err := s.chatItems(ctx, id, rooms, mine, rowOf, blocked, 0)
	if err != nil {
		return err
	}
	hidden, err := s.Hidden(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	var people []views.BlockedPerson
	for k, b := range blocked {
		people = append(people, views.BlockedPerson{MemberKey: k, Name: b.Name})
	}
	slices.SortFunc(people, func(a, b views.BlockedPerson) int { return strings.Compare(a.Name, b.Name) })
	noReceipts := false
	if pr, err := storage.Get[PresenceRow](ctx, s.presence, presencePart, id.MemberKey); err == nil {
		noReceipts = pr.NoReceipts
	}
	home, err := s.DefaultRoom(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	var roomChoices []views.RoomChoice
	for _, r := range rooms {
		if r.Private && !s.inRoom(r, rowOf[r.RowKey]) {
			continue
		}
		roomChoices = append(roomChoices, views.RoomChoice{ID: r.RowKey, Name: "#" + r.Name, Current: r.RowKey == home})
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "chat.list.heading"), Section: "chat", Content: views.List(views.ListProps{Items: items, Hidden: hidden, Blocked: people, NoReceipts: noReceipts, Rooms: roomChoices})})
}

// chatItems are id's chats as the list shows them, most recent first
// (recentChats), each with its last message, what the viewer has not
// read, and a private chat's other person's presence. limit > 0 keeps
// the first limit (the home page's card).
func (s *Service) chatItems(ctx context.Context, id *auth.Identity, rooms []ChatRow, mine []UserChatRow, rowOf map[string]UserChatRow, blocked map[string]BlockRow, limit int) ([]views.ChatItem, error) {
	chats, err := s.recentChats(ctx, id, rooms, mine, rowOf, limit)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var items []views.ChatItem
	for _, rc := range chats {
		h, chatID, other := rc.head, rc.head.PartitionKey, ""
		if rc.acc.Chat.wrote(rc.acc.Other) {
			other = rc.acc.Other // whose presence the list shows
		}
		if _, isBlocked := blocked[rc.acc.Other]; isBlocked && rc.acc.Other != "" {
			// Someone the reader blocked tells them nothing here either.
			items = append(items, views.ChatItem{Href: chatURL(chatID), Name: rc.title, Blocked: true})
			continue
		}
		n, mentioned, err := s.log.Unread(ctx, chatID, rowOf[chatID].ReadSeq, h.Seq, id.MemberKey, id.DisplayName, blocked)
		if err != nil {
			return nil, err
		}
		it := views.ChatItem{Href: chatURL(chatID), Name: rc.title, Preview: h.LastPreview, Sender: memberdata.Name(ctx, h.LastSenderKey, h.LastSender), Unread: unreadLabel(n), Mentions: int(mentioned),
			Muted: rowOf[chatID].MutedAt(s.now())}
		if n > 0 {
			it.Href += "#first-unread"
		}
		if other != "" {
			on, err := s.Online(ctx, other)
			if err != nil {
				return nil, err
			}
			it.Presence = presenceWord(on)
		}
		if h.LastExpiresAt != nil && !now.Before(*h.LastExpiresAt) {
			it.Preview, it.Sender = "", "" // expired: never served
		}
		if _, ok := blocked[h.LastSenderKey]; ok && it.Preview != "" {
			it.Preview, it.Sender, it.Folded = "", "", true
		}
		if !h.LastAt.IsZero() {
			it.When = shortTime(ctx, h.LastAt.In(id.Location()), now.In(id.Location()))
		}
		items = append(items, it)
	}
	return items, nil
}

// recentChat is one of a person's chats, authorized: its head, its name
// for them, and, for a chat not a room, how they may use it.
type recentChat struct {
	head  HeadRow
	title string
	acc   Access
}

// recentChats are id's chats, most recent first: the rooms they are in
// and the other chats of their list (mine), each authorized again, so a
// group left or an event cancelled drops out. limit > 0 keeps the first
// limit. Every chat's head is read (one point read each, headReads at
// once) to order them; only the chats kept are authorized.
func (s *Service) recentChats(ctx context.Context, id *auth.Identity, rooms []ChatRow, mine []UserChatRow, rowOf map[string]UserChatRow, limit int) ([]recentChat, error) {
	type candidate struct {
		head HeadRow
		room *ChatRow // nil: a chat of mine, authorized when kept
	}
	var cands []candidate
	for i, r := range rooms {
		if s.inRoom(r, rowOf[r.RowKey]) { // else the directory offers it
			cands = append(cands, candidate{HeadRow{PartitionKey: r.RowKey}, &rooms[i]})
		}
	}
	for _, m := range mine {
		if m.Kind != KindRoom {
			cands = append(cands, candidate{HeadRow{PartitionKey: m.RowKey}, nil})
		}
	}
	// The heads, headReads at a time: someone in many chats waits for
	// the slowest few reads, not for all of them in turn.
	err := storage.Each(ctx, len(cands), headReads, func(ctx context.Context, i int) error {
		h, err := s.log.Head(ctx, cands[i].head.PartitionKey)
		cands[i].head = h
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.head.LastAt.Compare(a.head.LastAt) })
	var out []recentChat
	for _, cd := range cands {
		if limit > 0 && len(out) == limit {
			break
		}
		rc := recentChat{head: cd.head}
		if cd.room != nil {
			rc.title, rc.acc = "#"+cd.room.Name, Access{Chat: *cd.room, Title: "#" + cd.room.Name, CanPost: true, InRoom: true}
		} else {
			acc, err := s.Open(ctx, id, cd.head.PartitionKey)
			if errors.Is(err, ErrNoChat) {
				continue
			}
			if err != nil {
				return nil, err
			}
			rc.title, rc.acc = acc.Title, acc
		}
		out = append(out, rc)
	}
	return out, nil
}

// headReads is how many chat heads chatItems reads at once.
const headReads = 8

// unreadLabel is an unread count as the list shows it: exact up to 99.
func unreadLabel(n int64) string {
	switch {
	case n <= 0:
		return ""
	case n > 99:
		return "99+"
	}
	return strconv.FormatInt(n, 10)
}

// shortTime is a message time for the list: the time today, else the day.
func shortTime(ctx context.Context, t, now time.Time) string {
	if t.Format(time.DateOnly) == now.Format(time.DateOnly) {
		return t.Format("15:04")
	}
	return i18n.Day(ctx, t)
}

// unreadContext is how many read messages the page shows above the
// first unread one.
const unreadContext = 5

// window is the part of the log a page shows, from its query: before=N
// (older: the page ending before N), after=N (newer: the page starting
// after N), latest (the newest page), or by default the page that opens
// at the viewer's first unread message.
func window(c echo.Context, head, read int64) (from, to int64, err error) {
	num := func(name string) (int64, error) {
		n, err := strconv.ParseInt(c.QueryParam(name), 10, 64)
		if err == nil && n < 0 {
			err = strconv.ErrRange
		}
		return n, err
	}
	switch {
	case c.QueryParam("before") != "":
		n, err := num("before")
		if err != nil || n < 1 {
			return 0, 0, errors.Join(err, strconv.ErrRange)
		}
		to = min(n-1, head)
		return max(to-pageSize+1, 1), to, nil
	case c.QueryParam("after") != "":
		n, err := num("after")
		if err != nil {
			return 0, 0, err
		}
		from = min(n+1, head)
		return from, min(from+pageSize-1, head), nil
	case c.QueryParam("latest") == "" && read < head && head-read > pageSize-unreadContext:
		from = max(read+1-unreadContext, 1)
		return from, min(from+pageSize-1, head), nil
	}
	return max(head-pageSize+1, 1), head, nil
}

// page is GET /chat/:id: a page of the log (window), the form, and, when
// the page reaches the newest message, the live stream from there. It
// opens at the viewer's first unread message, marked.
func (s *Service) page(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	acc := accessOf(c)
	ch := acc.Chat
	head, err := s.log.Head(ctx, ch.RowKey)
	if err != nil {
		return err
	}
	mine, err := storage.Find[UserChatRow](ctx, s.userChats, id.MemberKey, ch.RowKey, nil)
	if err != nil {
		return err
	}
	from, to, err := window(c, head.Seq, mine.ReadSeq)
	if err != nil {
		return web.BadRequest(i18n.T(ctx, "chat.error.cursor"), err)
	}
	msgs, err := s.log.Range(ctx, ch.RowKey, from, to)
	if err != nil {
		return err
	}
	blocked, err := s.Blocked(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	u := chatURL(ch.RowKey)
	p := views.PageProps{
		ID: ch.RowKey, Name: acc.Title, URL: u, Live: to == head.Seq, CanPost: acc.CanPost, Back: acc.Back, Kind: ch.Kind,
		Gone:      ch.Kind == KindPrivate && (memberdata.IsForgotten(ch.MemberA) || memberdata.IsForgotten(ch.MemberB)),
		StreamURL: u + "/stream?after=" + strconv.FormatInt(to, 10), Muted: mine.MutedAt(s.now()), MuteSpans: MuteSpans,
	}
	if p.Muted && mine.MutedUntil != nil {
		p.MutedUntil = i18n.DateTime(ctx, mine.MutedUntil.In(id.Location()))
	}
	known, err := s.known(ctx, ch.RowKey, msgs, pinsOf(head))
	if err != nil {
		return err
	}
	p.Pins = pins(ctx, id, blocked, ch, head, known)
	saved := savedOf(mine)
	for _, m := range msgs {
		if control(m) {
			continue
		}
		item := s.item(ctx, id, blocked, acc, m, saved)
		if m.ReplyTo > 0 {
			item.Quote = quote(ctx, id, blocked, ch, m.ReplyTo, known)
		}
		item.FirstUnread = m.Seq == mine.ReadSeq+1 && mine.ReadSeq > 0
		p.Messages = append(p.Messages, item)
	}
	if from > 1 {
		p.OlderURL = u + "?before=" + strconv.FormatInt(from, 10)
	}
	// "Seen by" under the newest message, in private and group chats.
	if p.Live && len(p.Messages) > 0 && (ch.Kind == KindPrivate || ch.Kind == KindGroup) {
		last := p.Messages[len(p.Messages)-1]
		var sender string
		for _, m := range msgs {
			if m.Seq == last.Seq {
				sender = m.Sender
			}
		}
		readers, err := s.seenBy(ctx, ch, last.Seq, sender)
		if err != nil {
			return err
		}
		p.SeenBy = namesBut(readers, id.MemberKey)
	}
	if !p.Live {
		p.NewerURL = u + "?after=" + strconv.FormatInt(to, 10)
		p.LatestURL = u + "?latest=1"
	}
	if ch.Kind == KindRoom {
		p.InRoom, p.Description = acc.InRoom, ch.Description
		if ch.Private {
			p.InviteURL = s.base + inviteURL(ch)
		}
	}
	if acc.Other != "" {
		if acc.Chat.wrote(acc.Other) {
			on, err := s.Online(ctx, acc.Other)
			if err != nil {
				return err
			}
			p.Presence = presenceWord(on)
		}
		_, p.Blocked = blocked[acc.Other]
		p.Other = acc.Other
	}
	if web.Opened(c.Request()) { // a browser's prefetch reads nothing, and is no visit
		if err := s.markRead(ctx, id.MemberKey, ch, to); err != nil {
			s.logger.WarnContext(ctx, "chat: read marker not moved", "chat", ch.RowKey, "err", err)
		}
		s.seen(ctx, Person{MemberKey: id.MemberKey, Name: id.DisplayName}, ch)
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Name, Section: "chat", Content: views.Page(p)})
}

// markUnread is POST /chat/:id/messages/:seq/unread: the viewer's marker
// goes back to just before that message (the one move back a person
// makes on purpose), and they return to the list.
func (s *Service) markUnread(c echo.Context) error {
	ctx := c.Request().Context()
	acc, seq := accessOf(c), seqOf(c)
	id := auth.From(c)
	// Only from a message the chat has: a number past the newest would
	// mark messages not yet sent as read.
	if _, err := s.log.Message(ctx, acc.Chat.RowKey, seq); err != nil {
		return err
	}
	s.markers.Delete(id.MemberKey + "|" + acc.Chat.RowKey)
	_, err := storage.Modify(ctx, s.userChats, id.MemberKey, acc.Chat.RowKey, func(r *UserChatRow, exists bool) error {
		if !exists {
			r.Kind, r.JoinedAt = acc.Chat.Kind, s.now().UTC()
		}
		r.ReadSeq = seq - 1
		return nil
	})
	if err != nil {
		return err
	}
	s.hub.ReadBy(ctx, id.MemberKey)
	return web.FlashRedirect(c, "chat.flash.unread", "/chat")
}

// item is a message as the viewer sees it, with what they may do to it;
// saved is what they saved in its chat.
func (s *Service) item(ctx context.Context, viewer *auth.Identity, blocked map[string]BlockRow, acc Access, m MessageRow, saved savedSet) views.Message {
	mine := viewer != nil && m.Sender == viewer.MemberKey
	v := views.Message{
		Seq: m.Seq, Anchor: "m-" + strconv.FormatInt(m.Seq, 10), Sender: memberdata.Name(ctx, m.Sender, m.SenderName), Mine: mine,
		System: m.Type == TypeSystem || m.Type == TypeLeft, Body: templ.Raw(richtext.Render(m.Body)), Text: m.Body,
		Time: m.SentAt.In(viewer.Location()).Format("15:04"), Datetime: m.SentAt.UTC().Format(time.RFC3339),
		Edited: m.EditedAt != nil, Deleted: m.DeletedAt != nil, Pinned: m.Pinned && m.DeletedAt == nil,
		ImageURL: imageURL(m.ImageKey, true), ImageFull: imageURL(m.ImageKey, false),
	}
	if _, ok := blocked[m.Sender]; ok && !mine && (m.Type == TypeText || m.Type == TypeImage) {
		v.Collapsed = true
	}
	if !v.System {
		v.SenderURL = auth.ProfileURL(m.Sender)
	}
	if v.System {
		key := "chat.joined"
		if m.Type == TypeLeft {
			key = "chat.left"
		}
		v.Body = templ.Raw(templ.EscapeString(i18n.T(ctx, key)))
	}
	base := chatURL(acc.Chat.RowKey) + "/messages/" + strconv.FormatInt(m.Seq, 10)
	if !mine && !v.Deleted && m.Type == TypeText {
		v.UnreadURL = base + "/unread"
	}
	if !v.Deleted && (m.Type == TypeText || m.Type == TypeImage) {
		if acc.CanPost && viewer != nil {
			v.ReplyURL = chatURL(acc.Chat.RowKey) + "/form?reply=" + strconv.FormatInt(m.Seq, 10)
		}
		if mayPin(viewer, acc) {
			v.PinURL = base + "/pin"
			if m.Pinned {
				v.PinURL = base + "/unpin"
			}
		}
		if mine && acc.CanPost && s.now().Sub(m.SentAt) <= editWindow && m.Type == TypeText {
			v.EditURL = base + "/edit"
		}
		if mine || viewer != nil && viewer.Admin {
			v.DeleteURL = base + "/delete"
		}
		if s.mayReport(viewer, m) {
			v.ReportURL = base + "/report"
		}
		if viewer != nil {
			mark, ok := saved[m.Seq]
			v.Saved, v.SaveURL, v.RemindURL = ok, base+"/save", base+"/remind"
			if v.Saved {
				v.SaveURL = base + "/unsave"
			}
			if mark.RemindAt != nil {
				v.Reminder = i18n.DateTime(ctx, mark.RemindAt.In(viewer.Location()))
			}
			v.ReactURL = base + "/react"
			v.Reactions = reactionsOf(ctx, m, viewer.MemberKey)
			v.Choices, v.PickerURL = reactionChoices(ctx, Reactions), base+"/react"
		}
	}
	return v
}

// markRead moves memberKey's read marker in ch to seq, never backwards
// (a stale tab reading older messages leaves it where it is). The
// instance remembers the marker it last wrote with its ETag, so moving
// it again is one conditional write and no read; when another instance
// or tab wrote in between, the write is refused and the row read again.
func (s *Service) markRead(ctx context.Context, memberKey string, ch ChatRow, seq int64) error {
	// Marking read is rate limited per person (document 003): past the
	// limit a move is skipped, and the next allowed one catches up.
	lim, ok := s.readLimits.Get(memberKey)
	if !ok {
		lim, _ = s.readLimits.GetOrPut(memberKey, rate.NewLimiter(rate.Every(time.Minute/markReadsPerMinute), markReadBurst))
	}
	if !lim.AllowN(s.now(), 1) {
		return nil
	}
	key := memberKey + "|" + ch.RowKey
	known, ok := s.markers.Get(key)
	if ok && known.row.ReadSeq >= seq {
		if s.now().Sub(known.at) < markerTrust {
			return nil
		}
		// Perhaps moved back since ("unread from here" on another
		// instance): read it again rather than trust an old copy.
		s.markers.Delete(key)
		ok = false
	}
	if ok {
		r := known.row
		r.ReadSeq = seq
		var etag string
		var err error
		if r.ETag == "" {
			// Known to be missing (knowMarker): the first marker is an
			// insert, refused if someone made it meanwhile.
			r.PartitionKey, r.RowKey, r.Kind, r.JoinedAt = memberKey, ch.RowKey, ch.Kind, s.now().UTC()
			etag, err = storage.Insert(ctx, s.userChats, r)
			if errors.Is(err, storage.ErrExists) {
				err = storage.ErrPrecondition
			}
		} else {
			var e storage.Entity
			if e, err = storage.Marshal(r); err != nil {
				return err
			}
			etag, err = s.userChats.Update(ctx, e, storage.Replace, r.ETag)
		}
		if err == nil {
			r.ETag = etag
			s.remember(key, r)
			s.markerMoved(ctx, memberKey, ch)
			return nil
		}
		s.markers.Delete(key)
		if !errors.Is(err, storage.ErrPrecondition) && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	r, err := storage.Modify(ctx, s.userChats, memberKey, ch.RowKey, func(r *UserChatRow, exists bool) error {
		if exists && r.ReadSeq >= seq {
			return storage.ErrNoChange
		}
		if !exists {
			r.Kind, r.JoinedAt = ch.Kind, s.now().UTC()
		}
		r.ReadSeq = seq
		return nil
	})
	if err == nil && r.ReadSeq == seq {
		s.markerMoved(ctx, memberKey, ch)
	}
	if err == nil {
		s.remember(key, r)
	}
	return err
}

// markerTrust is how long the copy of a marker an instance keeps is
// trusted to say a move is not needed. Moves forward are checked by the
// row's ETag anyway; only "unread from here" elsewhere moves a marker
// back, and then this instance may skip a move for at most this long.
const markerTrust = 30 * time.Second

// knownMarker is an instance's copy of a marker row, and when it was
// read or written.
type knownMarker struct {
	row UserChatRow
	at  time.Time
}

// remember keeps r as the instance's copy of the marker at key.
func (s *Service) remember(key string, r UserChatRow) {
	s.markers.Put(key, knownMarker{row: r, at: s.now()})
}

// knowMarker has the instance know memberKey's marker row in ch (read
// now if it does not), so a stream moving it later writes without a
// read: the read is paid when the stream opens, not per message.
func (s *Service) knowMarker(ctx context.Context, memberKey string, ch ChatRow) error {
	key := memberKey + "|" + ch.RowKey
	if _, ok := s.markers.Get(key); ok {
		return nil
	}
	r, err := storage.Find[UserChatRow](ctx, s.userChats, memberKey, ch.RowKey, nil)
	if err != nil {
		return err
	}
	s.markers.GetOrPut(key, knownMarker{row: r, at: s.now()}) // a missing row: ETag "", ReadSeq 0
	return nil
}

// markerMoved tells watchers memberKey's marker in ch moved: the chat's,
// where "seen by" shows it, and memberKey's own chat lists (ReadBy).
func (s *Service) markerMoved(ctx context.Context, memberKey string, ch ChatRow) {
	if ch.Kind == KindPrivate || ch.Kind == KindGroup {
		s.hub.Read(ctx, ch.RowKey)
	}
	s.hub.ReadBy(ctx, memberKey)
}

// send is POST /chat/:id/messages (body). htmx gets a fresh form (the
// stream brings the message); a plain form goes back to the chat, at the
// message. A refused message keeps its text with the reason.
func (s *Service) send(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	acc := accessOf(c)
	if !acc.CanPost {
		return ErrReadOnly
	}
	if acc.Other != "" && s.hasBlocked(ctx, id.MemberKey, acc.Other) {
		return ErrBlockedByYou
	}
	ch := acc.Chat
	body := c.FormValue("body")
	// The message it answers is checked before anything is taken or
	// written; a refusal keeps the form answering it.
	reply, err := s.replyTarget(ctx, ch, c.FormValue("reply"))
	form := formProps(ctx, id, nil, ch, &reply)
	form.Body = body
	var image []byte
	if err == nil {
		image, err = s.uploads.Read(c, "image", media.DefaultMaxBytes)
		if errors.Is(err, web.ErrNoUpload) {
			image, err = nil, nil
		}
	}
	var m MessageRow
	if err == nil {
		m, err = s.post(ctx, ch, acc.Title, Person{MemberKey: id.MemberKey, Name: id.DisplayName}, body, image, reply.Seq)
	}
	if err == nil && ch.Kind == KindRoom && !acc.InRoom {
		// Posting in a public room joins it.
		err = s.setMember(ctx, id.MemberKey, ch, true)
	}
	again := func(status int, msg string) error {
		form.Error = msg
		return web.Render(c, status, web.Page{Title: acc.Title, Section: "chat", Content: views.FormPage(form), Fragment: views.Form(form)})
	}
	if status, key, ok := web.UploadRefusal(err); ok {
		return again(max(status, http.StatusUnprocessableEntity), i18n.T(ctx, key, "mb", media.DefaultMaxBytes>>20))
	}
	if status, msg, ok := web.Refused(ctx, err); ok {
		return again(status, msg) // a body that breaks the rules, or too many too fast
	} else if err != nil {
		return err
	}
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, http.StatusOK, views.Form(formProps(ctx, id, nil, ch, nil)))
	}
	return web.Redirect(c, chatURL(ch.RowKey)+"#m-"+strconv.FormatInt(m.Seq, 10))
}

// startPrivate is POST /chat/private (member): the private chat with
// that person, made on first use.
func (s *Service) startPrivate(c echo.Context) error {
	chatID, err := s.StartPrivate(c.Request().Context(), auth.From(c), c.FormValue("member"))
	if err != nil {
		return err
	}
	return web.Redirect(c, chatURL(chatID))
}

// message checks the route's message number (:seq) and keeps it for the
// handler (seqOf); one that is not a positive number is ErrNoMessage.
var message = seqScope.Require(func(c echo.Context) (int64, error) {
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 64)
	if err != nil || seq < 1 {
		return 0, ErrNoMessage
	}
	return seq, nil
})

// seqScope carries the message number message checked.
var seqScope = web.NewScope[int64]("chat.seq")

// seqOf is the message number message checked.
func seqOf(c echo.Context) int64 { return seqScope.From(c) }

// changed answers an edit or a deletion: htmx gets the message, a plain
// form goes back to it.
func (s *Service) changed(c echo.Context, acc Access, m MessageRow) error {
	return s.changedSaved(c, acc, m, nil)
}

// changedSaved is changed where the caller knows whether the viewer
// saved m (saved[m.Seq]); nil reads it (a point read).
func (s *Service) changedSaved(c echo.Context, acc Access, m MessageRow, saved savedSet) error {
	if web.HTMXFrom(c).Partial {
		ctx, id := c.Request().Context(), auth.From(c)
		if saved == nil {
			var err error
			if saved, err = s.savedIn(ctx, id.MemberKey, acc.Chat.RowKey); err != nil {
				return err
			}
		}
		v, err := s.withQuote(ctx, id, nil, acc.Chat, s.item(ctx, id, nil, acc, m, saved), m)
		if err != nil {
			return err
		}
		return web.RenderFragment(c, http.StatusOK, views.MessageItem(v))
	}
	return web.Redirect(c, chatURL(acc.Chat.RowKey)+"#m-"+strconv.FormatInt(m.Seq, 10))
}

// edit is POST /chat/:id/messages/:seq/edit (body): the sender, within
// the edit window.
func (s *Service) edit(c echo.Context) error {
	ctx := c.Request().Context()
	acc, seq := accessOf(c), seqOf(c)
	if !acc.CanPost {
		return ErrReadOnly // who may only read the chat now edits nothing
	}
	id := auth.From(c)
	m, err := s.Edit(ctx, acc.Chat, seq, Person{MemberKey: id.MemberKey, Name: id.DisplayName}, c.FormValue("body"))
	if err != nil {
		return err
	}
	return s.changed(c, acc, m)
}

// remove is POST /chat/:id/messages/:seq/delete, after confirmation: the
// sender, or an admin.
func (s *Service) remove(c echo.Context) error {
	ctx := c.Request().Context()
	acc, seq, id := accessOf(c), seqOf(c), auth.From(c)
	if !web.Confirmed(c) {
		// Asked of a message there, theirs to delete, alone.
		m, err := s.log.Message(ctx, acc.Chat.RowKey, seq)
		if err != nil {
			return err
		}
		if m.Sender != id.MemberKey && !id.Admin {
			return ErrNotYours
		}
		return web.AskConfirm(c, components.ConfirmProps{
			Action: chatURL(acc.Chat.RowKey) + "/messages/" + strconv.FormatInt(seq, 10) + "/delete",
			Label:  i18n.T(ctx, "chat.delete"), Question: i18n.T(ctx, "chat.delete_question"), Yes: i18n.T(ctx, "chat.delete"), Danger: true, TestID: "chat-delete",
		})
	}
	m, err := s.Delete(ctx, acc.Chat, seq, Person{MemberKey: id.MemberKey, Name: id.DisplayName}, id.Admin)
	if err != nil {
		return err
	}
	return s.changed(c, acc, m)
}

// defaultRoom is GET /chat/default: the reader's default room.
func (s *Service) defaultRoom(c echo.Context) error {
	chatID, err := s.DefaultRoom(c.Request().Context(), auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	if chatID == "" {
		return web.Redirect(c, "/chat")
	}
	return web.Redirect(c, chatURL(chatID))
}

// setDefaultRoom is POST /chat/default (room): the reader's default room.
func (s *Service) setDefaultRoom(c echo.Context) error {
	if err := s.SetDefaultRoom(c.Request().Context(), auth.From(c).MemberKey, c.FormValue("room")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "chat.flash.default", "/chat")
}
