package groups

import (
	"context"

	"github.com/harmony/harmony/internal/auth"
)

// GroupChat authorizes id for the group's chat: active members only,
// read from the roster on every call, so someone removed loses the chat
// on their next request. It returns the group's name; anyone else gets
// ErrNoGroup.
func (s *Service) GroupChat(ctx context.Context, groupID string, id *auth.Identity) (string, error) {
	_, g, err := s.Open(ctx, groupID, id, AccessMember)
	if err != nil {
		return "", err
	}
	return g.GroupName, nil
}

// ChatLeaver is told when someone leaves what a chat belongs to (the
// chat module): it says so in the chat and ends their open streams. A
// group purged has its chat forgotten: the messages, the pictures and
// each member's place of it in their list.
type ChatLeaver interface {
	Left(ctx context.Context, chatID, memberKey, name string)
	Forget(ctx context.Context, chatID string, memberKeys []string) error
}

// chatID is the group's chat's id (the chat module's "group-{id}").
func chatID(groupID string) string { return "group-" + groupID }

// UseChat has removals and departures told to the group's chat. Call it
// while wiring.
func (s *Service) UseChat(c ChatLeaver) { s.chat = c }
