package chat

import (
	"context"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/views/components"
)

// BlockProps is blocking someone (member, shown as name) behind its
// question, wherever it is offered: a private chat's head, a person's
// page in People, and the question's own page without JavaScript. back
// is where the block returns ("" for the chat list).
func BlockProps(ctx context.Context, member, name, back string) components.ConfirmProps {
	keep := [][2]string{{"member", member}, {"name", name}}
	if back != "" {
		keep = append(keep, [2]string{"next", back})
	}
	return components.ConfirmProps{
		Action: "/chat/block", Label: i18n.T(ctx, "chat.block"), Named: i18n.T(ctx, "chat.block_named", "name", i18n.Isolate(name)),
		Question: i18n.T(ctx, "chat.block_question", "name", i18n.Isolate(name)), Yes: i18n.T(ctx, "chat.block"), Danger: true,
		TestID: "chat-block", Keep: keep,
	}
}
