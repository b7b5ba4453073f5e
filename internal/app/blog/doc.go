// Package blog is the site's blog (document 000's BlogPosts and
// blog-images): posts that admins write in Markdown, with a cover
// picture and tags, kept as drafts, published at once or scheduled for
// a time, read by everyone, newest first, by tag, and through an RSS
// feed.
//
// A post's row (BlogPosts, PK "post", RK its address) is the truth; the
// listing's cards (BlogIndex) are derived from it by a projection: one
// card in the "all" partition and one per tag while it is published,
// keyed by its publication time reversed, so a listing is one query of
// one partition, newest first, and a post scheduled for later is simply
// not reached yet (the listing starts at now). Drafts have a card in the
// "draft" partition, for the admins' list. The page of every tag
// (/blog/tags) counts the tags of the "all" partition's cards from now
// on back, the same way.
//
// Deleting an account (memberdata.go): the member's comments and
// replies stay under their posts, by "Deleted member" (the comments
// kit's ForgetAuthor), their follow goes, and a post they wrote stays,
// its author Forgotten on the post and its cards alike.
package blog
