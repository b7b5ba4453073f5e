// Package chat is the chat module (documents 000 and 003, issue 13):
// rooms, and later private, group and event chats, with messages kept
// per chat in sequence and delivered live over Server-Sent Events, on
// this instance at once and on others through the app's change feed
// (internal/live).
//
// What lives where:
//   - rows.go: the tables and their keys;
//   - log.go: a chat's message log (send in one transaction at the
//     chat's head, read by sequence);
//   - rooms.go: rooms, seeded on first start;
//   - hub.go: live delivery (local subscribers and the tails they share;
//     sends and read markers go through the change feed);
//   - handlers.go, stream.go: the pages and the SSE stream;
//   - memberdata.go: a member's data archive, and their account's
//     deletion: their messages stay by "Deleted member", a private chat
//     stays for the other person to read, and what was theirs alone
//     (reactions, chat list, presence, blocks) goes.
package chat
