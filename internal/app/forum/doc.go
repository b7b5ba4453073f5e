// Package forum is the community's forum: sections of topics, each a
// thread of posts (ForumPosts, a partition a topic: its head, its posts,
// their revisions, likes, watchers and participants), listed through
// TopicActivityIndex, with read markers, bookmarks and mutes per reader
// (ForumReads) and rate limits (ForumQuota).
//
// Deleting an account (memberdata.go): the member's topics and posts
// stay, by "Deleted member" (memberdata.Forgotten on the rows, no name
// kept; lists, which keep names alone, show "" as "Deleted member"); their
// likes go with the counts, and so do their watches, read markers,
// bookmarks, mutes, moderation of sections, participant rows and
// rate-limit rows.
package forum
