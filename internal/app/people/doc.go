// Package people is the people module (document 000's Likes and
// Matches; TABLES.md "People"), as Hinge does it for a community:
//
//   - Discover (/people): the members who chose "Show me in People",
//     narrowed by the viewer's preferences (who, what ages), each with
//     their photo, age, place and about, and a like.
//   - A like may carry a comment ("Loved your cello!"). The liked person
//     is told, and sees it under "Likes you" with the liker's card,
//     unless the liker likes anonymously (their settings): then they see
//     that someone liked them, not who, until they like them too.
//   - Two people who like each other match: both are told, both find
//     each other under "Matches" with "Message" (a private chat), and
//     either may unmatch, which ends it for both for good.
//   - A skip (Hinge's ✕) takes someone out of the skipper's Discover,
//     and nothing else; "Skipped" shows them again on a click (skips.go).
//   - Blocks (the chat's, one table for the whole app) keep the blocker
//     clear: the people they blocked are not in their Discover, their
//     likes or their matches, cannot match them, and tell them nothing.
//     The blocked person is not told.
//
// Likes (PK liker, RK liked) are the truth. The received rows (PK
// "{liked}|received", RK liker) and the Matches rows (one per member,
// PK member, RK the other) are written after them and rebuilt from them
// (Rebuild, "web reindex people"), so a write that stopped half way is
// repaired.
package people
