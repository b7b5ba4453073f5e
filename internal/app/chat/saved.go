package chat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/textsearch"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// Saved messages, as Slack's "Save for later" and Zulip's starred
// messages: a person saves a message of any chat they read, for
// themselves alone; it shows "Saved" to them, and "Saved messages"
// (/chat/saved) lists what they saved across their chats, the latest
// saved first, each as it is now and leading to it in its chat.
//   - What one saved in a chat rides on their UserChats row of it
//     (UserChatRow.Saved, a list column, with HasSaved for the list's
//     filter), which the chat's page reads anyway: the marks cost the
//     page nothing, a save is one write at the row's ETag, and the list
//     is one query of the person's rows holding any.
//   - The list reads each message as it is now (a point read each, 8 at
//     once) and asks, once a chat, whether the person may still open it:
//     an edit shows, a message deleted or no longer kept says so, and a
//     chat they may no longer open shows nothing of it. Either keeps its
//     Remove, which only ever touches the person's own row.
//   - At most MaxSavedPerChat in one chat: one more is refused (409).

// MaxSavedPerChat bounds the messages one person saves in one chat.
const MaxSavedPerChat = 100

// savedPageSize is how many saved messages one page of the list shows.
const savedPageSize = 20

// SavedURL is the list of one's saved messages.
const SavedURL = "/chat/saved"

// ErrTooManySaved is one saved message more than MaxSavedPerChat in a
// chat (409).
var ErrTooManySaved = fault.New(http.StatusConflict, "chat.error.saved", "chat: too many saved messages in one chat", "max", MaxSavedPerChat)

// SavedMark is one saved message of a chat: its number and when it was
// saved.
type SavedMark struct {
	Seq int64     `json:"n"`
	At  time.Time `json:"at"`
	// RemindAt, when set, is when a reminder of it reaches its reader's
	// inbox (saved_reminders.go).
	RemindAt *time.Time `json:"r,omitempty"`
}

// savedSet is the marks of the messages one saved in a chat, by number.
type savedSet map[int64]SavedMark

// savedOf is what r says its person saved.
func savedOf(r UserChatRow) savedSet {
	out := savedSet{}
	for _, m := range storage.ListOf[SavedMark](r.Saved) {
		out[m.Seq] = m
	}
	return out
}

// savedIn is what memberKey saved in chatID: one point read.
func (s *Service) savedIn(ctx context.Context, memberKey, chatID string) (savedSet, error) {
	r, err := storage.Find[UserChatRow](ctx, s.userChats, memberKey, chatID, nil)
	return savedOf(r), err
}

// Save saves (on) or unsaves message seq of ch for memberKey, whom the
// caller let read it; saving it again, or unsaving what is not saved,
// changes nothing.
func (s *Service) Save(ctx context.Context, memberKey string, ch ChatRow, seq int64, on bool) error {
	_, err := s.mark(ctx, memberKey, ch, seq, on, nil)
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	return err
}

// mark is Save, and then, when saving, change of the message's mark
// (new or kept) in the same write. It returns the mark as it stands (the
// zero mark when unsaved); one that changes nothing writes nothing and
// is storage.ErrNoChange.
func (s *Service) mark(ctx context.Context, memberKey string, ch ChatRow, seq int64, on bool, change func(m *SavedMark) error) (SavedMark, error) {
	var mark SavedMark
	r, err := storage.Modify(ctx, s.userChats, memberKey, ch.RowKey, func(r *UserChatRow, exists bool) error {
		list := storage.ListOf[SavedMark](r.Saved)
		i := slices.IndexFunc(list, func(m SavedMark) bool { return m.Seq == seq })
		at := i
		switch {
		case on && i >= 0: // kept: only change changes it
			mark = list[i]
			if change == nil {
				return storage.ErrNoChange
			}
			if err := change(&list[i]); err != nil {
				return err
			}
		default:
			var err error
			list, err = storage.Toggled(list, i, on, MaxSavedPerChat, ErrTooManySaved, func() SavedMark {
				return SavedMark{Seq: seq, At: s.now().UTC()}
			})
			if err != nil {
				return err
			}
			at = len(list) - 1 // new: a change as asked already is still a save
			if on && change != nil {
				if err := change(&list[at]); err != nil && !errors.Is(err, storage.ErrNoChange) {
					return err
				}
			}
		}
		if on {
			mark = list[at]
		}
		if !exists {
			r.Kind, r.JoinedAt = ch.Kind, s.now().UTC()
		}
		r.HasSaved = len(list) > 0
		var err error
		r.Saved, err = storage.ListText(list)
		return err
	})
	if err == nil {
		s.remember(memberKey+"|"+ch.RowKey, r) // the read marker's copy
	}
	return mark, err
}

// saveable reports whether m may be saved: a message shown (text or
// picture, not deleted).
func saveable(m MessageRow) bool {
	return m.DeletedAt == nil && (m.Type == TypeText || m.Type == TypeImage)
}

// saveMessage is POST /chat/:id/messages/:seq/save and …/unsave: htmx
// gets the message, a plain form goes back to it. Only a message shown
// (text or picture, not deleted) is saved.
func (s *Service) saveMessage(on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, acc, id := c.Request().Context(), accessOf(c), auth.From(c)
		m, err := s.log.Message(ctx, acc.Chat.RowKey, seqOf(c))
		if err != nil {
			return err
		}
		if on && !saveable(m) {
			return ErrNoMessage
		}
		mark, err := s.mark(ctx, id.MemberKey, acc.Chat, m.Seq, on, nil)
		if err != nil && !errors.Is(err, storage.ErrNoChange) {
			return err
		}
		saved := savedSet{}
		if on {
			saved[m.Seq] = mark
		}
		return s.changedSaved(c, acc, m, saved) // no read: it is as asked now
	}
}

// unsaveFromList is POST /chat/saved/remove (chat, seq): one's own mark
// goes, whatever became of the message or of one's access to its chat;
// back to the list.
func (s *Service) unsaveFromList(c echo.Context) error {
	ctx, id := c.Request().Context(), auth.From(c)
	chatID, seq, err := savedOfForm(c)
	if err != nil {
		return err
	}
	if err := s.Save(ctx, id.MemberKey, ChatRow{RowKey: chatID}, seq, false); err != nil {
		return err
	}
	return web.FlashRedirect(c, "chat.flash.unsaved", web.NextOr(c, SavedURL))
}

// savedOfForm is the saved message a form of the list names (chat,
// seq); one that names none is a 400.
func savedOfForm(c echo.Context) (chatID string, seq int64, err error) {
	chatID = c.FormValue("chat")
	seq, err = strconv.ParseInt(c.FormValue("seq"), 10, 64)
	if kind, _ := kindOf(chatID); kind == "" || len(chatID) > 200 || err != nil || seq < 1 {
		return "", 0, web.BadRequest(i18n.T(c.Request().Context(), "chat.error.saved_form"), err)
	}
	return chatID, seq, nil
}

// savedEntry is one saved message of the list.
type savedEntry struct {
	chatID string
	SavedMark
}

// key is where e stands in the list, the latest saved first: the list's
// cursor ("{unix nanoseconds}|{chatId}|{seq}").
func (e savedEntry) key() string { return fmt.Sprintf("%d|%s|%d", e.At.UnixNano(), e.chatID, e.Seq) }

// compareSaved orders the list: the latest saved first, then by chat
// and message.
func compareSaved(a, b savedEntry) int {
	return cmp.Or(b.At.Compare(a.At), strings.Compare(a.chatID, b.chatID), cmp.Compare(a.Seq, b.Seq))
}

// parseSavedKey reads a cursor of the list (key); ok false when it is
// none.
func parseSavedKey(text string) (savedEntry, bool) {
	f := strings.SplitN(text, "|", 3)
	if len(f) != 3 {
		return savedEntry{}, false
	}
	nanos, err1 := strconv.ParseInt(f[0], 10, 64)
	seq, err2 := strconv.ParseInt(f[2], 10, 64)
	if kind, _ := kindOf(f[1]); err1 != nil || err2 != nil || kind == "" || seq < 1 {
		return savedEntry{}, false
	}
	return savedEntry{chatID: f[1], SavedMark: SavedMark{Seq: seq, At: time.Unix(0, nanos).UTC()}}, true
}

// SavedBy is what memberKey saved in every chat, the latest first: one
// query of their UserChats rows holding any.
func (s *Service) SavedBy(ctx context.Context, memberKey string) ([]savedEntry, error) {
	marks, err := storage.AllListed[UserChatRow, SavedMark](ctx, s.userChats, memberKey, "hasSaved", "saved", func(r UserChatRow) (string, string) { return r.RowKey, r.Saved })
	out := make([]savedEntry, len(marks))
	for i, m := range marks {
		out[i] = savedEntry{chatID: m.RowKey, SavedMark: m.Item}
	}
	slices.SortFunc(out, compareSaved)
	return out, err
}

// savedPage is GET /chat/saved (?after, the list's cursor): one's saved
// messages, a page at a time; a cursor that is none is a 400.
func (s *Service) savedPage(c echo.Context) error {
	ctx, id := c.Request().Context(), auth.From(c)
	all, err := s.SavedBy(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	if after := c.QueryParam("after"); after != "" {
		from, ok := parseSavedKey(after)
		if !ok {
			return web.BadRequest(i18n.T(ctx, "chat.error.cursor"), nil)
		}
		all = slices.DeleteFunc(all, func(e savedEntry) bool { return compareSaved(e, from) <= 0 })
	}
	page, next := all, ""
	if len(page) > savedPageSize {
		page = page[:savedPageSize]
		next = SavedURL + "?after=" + page[len(page)-1].key()
	}
	items, err := s.savedItems(ctx, id, page)
	if err != nil {
		return err
	}
	p := views.SavedProps{Items: items, NextURL: next, Total: len(all)}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "chat.saved.heading"), Section: "chat", Content: views.SavedPage(p), Fragment: views.SavedItems(items, next)})
}

// savedItems are page's entries as viewer sees them now: each chat asked
// once whether they may open it (Open), each message read (8 at once).
func (s *Service) savedItems(ctx context.Context, viewer *auth.Identity, page []savedEntry) ([]views.SavedItem, error) {
	access := map[string]*Access{}
	for _, e := range page {
		if _, ok := access[e.chatID]; ok {
			continue
		}
		acc, err := s.Open(ctx, viewer, e.chatID)
		switch {
		case errors.Is(err, ErrNoChat):
			access[e.chatID] = nil
		case err != nil:
			return nil, err
		default:
			access[e.chatID] = &acc
		}
	}
	msgs := make([]MessageRow, len(page))
	err := storage.Each(ctx, len(page), 8, func(ctx context.Context, i int) error {
		if access[page[i].chatID] == nil {
			return nil
		}
		m, err := s.log.Message(ctx, page[i].chatID, page[i].Seq)
		if errors.Is(err, ErrNoMessage) {
			return nil
		}
		msgs[i] = m
		return err
	})
	if err != nil {
		return nil, err
	}
	items := make([]views.SavedItem, len(page))
	for i, e := range page {
		it := views.SavedItem{ChatID: e.chatID, Seq: e.Seq, SavedAt: i18n.DateTime(ctx, e.At.In(viewer.Location()))}
		if e.RemindAt != nil {
			it.Reminder = i18n.DateTime(ctx, e.RemindAt.In(viewer.Location()))
		}
		acc, m := access[e.chatID], msgs[i]
		switch {
		case acc == nil:
			it.Closed = true
		case m.Seq == 0 || m.DeletedAt != nil:
			it.Chat, it.ChatURL, it.Gone = acc.Title, chatURL(e.chatID), true
		default:
			it.Chat, it.ChatURL, it.URL = acc.Title, chatURL(e.chatID), messageURL(e.chatID, e.Seq)
			it.Sender = memberdata.Name(ctx, m.Sender, m.SenderName)
			it.When, it.Datetime = i18n.DateTime(ctx, m.SentAt.In(viewer.Location())), m.SentAt.UTC().Format(time.RFC3339)
			it.Excerpt, it.Picture = textsearch.Excerpt(richtext.Plain(m.Body, 0), nil, 280), m.ImageKey != ""
		}
		items[i] = it
	}
	return items, nil
}
