package main

import (
	"context"
	"strings"

	"github.com/harmony/harmony/internal/ai"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/blog"
	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/app/events"
	"github.com/harmony/harmony/internal/app/forum"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/app/people"
	"github.com/harmony/harmony/internal/app/prompts"
	"github.com/harmony/harmony/internal/app/store"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web"
)

// modules are the app's modules beyond identity and accounts, in the order
// their sections appear. Adding a module is one line here.
func modules() []platform.Factory {
	var m built
	return []platform.Factory{
		m.admin,
		m.inbox,
		m.groups,
		m.prompts,
		m.events,
		m.chat,
		m.forum,
		m.people,
		m.store,
		m.blog,
	}
}

// built keeps the modules another module's wiring needs (the AI client
// counts its calls in the admin section's usage tables).
type built struct {
	admin_  *admin.Service
	inbox_  *inbox.Service
	groups_ *groups.Service
	events_ *events.Service
	chat_   *chat.Service
}

func (m *built) admin(c *platform.Core) (web.Module, error) {
	m.admin_ = admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
	m.admin_.UseMetrics(c.Metrics)
	m.admin_.UseTasks(c.Tasks)
	m.admin_.UseFeed(c.Live)
	return m.admin_, nil
}

func (m *built) inbox(c *platform.Core) (web.Module, error) {
	var err error
	m.inbox_, err = inbox.FromCore(c)
	if err == nil {
		m.admin_.UseNotifier(m.inbox_, c.Config.AdminEmails)
	}
	return m.inbox_, err
}

func (m *built) groups(c *platform.Core) (web.Module, error) {
	g := groups.New(c.Store, c.Accounts, c.Cursors, c.Config.BaseURL.String(), c.Log, c.Now)
	g.UseNotifier(m.inbox_)
	if err := g.UseTasks(c.Tasks); err != nil {
		return nil, err
	}
	g.UseInviteLimits(groups.InviteLimits{PerHour: c.Config.InviteLimitHour, PerDay: c.Config.InviteLimitDay})
	g.UseGuests(c.Auth)
	g.UseLive(c.Live)
	g.UseSessions(c.Auth)
	g.UseGuestPhotos(c.Accounts)
	// "Read the scan" only when an OpenAI-compatible API is configured:
	// a nil *ai.Extractor in the interface would offer a button that
	// cannot work. Every call is counted in the usage tables.
	extractor := ai.New(c.Config.OpenAI, m.admin_.Usage(), c.Log, c.Now)
	if extractor != nil {
		g.UseExtractor(extractor)
		c.Log.Info("AI scan reading is on", "model", extractor.Model())
	}
	c.Accounts.ShowAIUsage(m.admin_.Usage(), extractor != nil)
	m.groups_ = g
	return g, nil
}

func (m *built) events(c *platform.Core) (web.Module, error) {
	ev := events.New(c.Store, c.Cursors, c.Log, c.Now)
	ev.UseNotifier(m.inbox_)
	ev.UseGroups(m.groups_)
	ev.UsePeople(c.Auth, c.Accounts)
	ev.UseBaseURL(c.Config.BaseURL.String())
	ev.LimitRegistrations(c.Config.RegistrationsPerMinute)
	if err := ev.UseTasks(c.Tasks); err != nil {
		return nil, err
	}
	m.events_ = ev
	return ev, nil
}

func (m *built) chat(c *platform.Core) (web.Module, error) {
	ch := chat.New(c.Store, c.Log, c.Now, chat.Options{TTL: c.Config.MessagesTTL, Rooms: c.Config.ChatRooms, BaseURL: c.Config.BaseURL.String(), Live: c.Live})
	ch.UseGroups(m.groups_)
	ch.UseEvents(m.events_)
	ch.UsePeople(c.Accounts)
	ch.UseSessions(c.Auth)
	ch.UseNotifier(m.inbox_)
	m.inbox_.UseBlocks(ch)
	m.inbox_.UseQuotes("chat", ch)
	c.Accounts.UseMessaging("/chat/private")
	m.groups_.UseChat(ch)
	m.events_.UseChat(ch)
	m.chat_ = ch
	return ch, ch.UseTasks(c.Tasks)
}

func (m *built) prompts(c *platform.Core) (web.Module, error) {
	p := prompts.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
	p.UseSeedTags(promptSeedTags(c.Config))
	p.UseModerationLog(m.admin_)
	return p, nil
}

func (m *built) forum(c *platform.Core) (web.Module, error) {
	f := forum.New(c.Store, c.Cursors, c.Log, c.Now)
	f.UseNotifier(m.inbox_)
	if err := f.UseTasks(c.Tasks); err != nil {
		return nil, err
	}
	f.UseModerationLog(forumLog{m.admin_})
	f.UsePeople(c.Accounts)
	f.UseDirectory(c.Auth)
	f.UseLive(c.Live, c.Auth)
	f.UseBaseURL(strings.TrimSuffix(c.Config.BaseURL.String(), "/"))
	return f, nil
}

func (m *built) people(c *platform.Core) (web.Module, error) {
	p := people.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
	p.UseBlocks(m.chat_)
	p.UseNotifier(m.inbox_)
	p.UseMessaging("/chat/private")
	c.Accounts.UsePersonExtra(p)
	return p, nil
}

func (m *built) store(c *platform.Core) (web.Module, error) {
	s := store.New(c.Store, c.Cursors, c.Log, c.Now)
	s.UseNotifier(m.inbox_)
	return s, s.UseTasks(c.Tasks)
}

func (m *built) blog(c *platform.Core) (web.Module, error) {
	b := blog.New(c.Store, c.Cursors, strings.TrimSuffix(c.Config.BaseURL.String(), "/"), c.Log, c.Now)
	b.UseNotifier(m.inbox_)
	return b, b.UseTasks(c.Tasks)
}

// forumLog writes the forum's moderation in the admin section's log.
type forumLog struct{ admin *admin.Service }

func (l forumLog) LogAction(ctx context.Context, e forum.LogEntry) error {
	return l.admin.LogAction(ctx, e.ActorKey, e.ActorName, e.Action, e.TargetType, e.TargetKey, e.TargetName, e.Reason)
}
