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
//
// # Deleting an account
//
// Everything People keeps of a member is theirs alone and goes with
// their account (memberdata.go): their photos (the files, then the
// rows) and their card's photo, their likes given and received (the
// received row before its sent row), their matches (the other's side
// first, so the other loses the match too, as on Hinge), their skips
// and everyone's skips of them (PeopleSkips has no index by whom was
// skipped: a scan filtered on the RowKey), and their PeopleQuota rows
// (likes, and places under "{memberKey}|place"). Notices that told
// others of a like keep the name they were posted with. The archive
// (people/people.json and people/photos/) names the other people of
// likes and matches by name only, and nobody for an anonymous like.
package people
