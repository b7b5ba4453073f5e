package blog

import (
	"strings"
	"time"
)

// The module's tables and container.
const (
	PostsTable      = "BlogPosts"
	IndexTable      = "BlogIndex"
	ImagesContainer = "blog-images"
)

// postsPart is the one partition of BlogPosts.
const postsPart = "post"

// Partitions of BlogIndex: every published post, a tag's, and the drafts.
const (
	allPart   = "all"
	draftPart = "draft"
	tagPrefix = "tag|"
)

// Card is what a listing shows of a post. The post holds it, and its
// BlogIndex rows copy it (CardRow), so a listing reads no post.
type Card struct {
	// ID names the post's pictures' folder; it stays when a draft's
	// address changes.
	ID      string `table:"id"`
	Title   string `table:"title"`
	Excerpt string `table:"excerpt"` // the summary, or the body's first words
	// CoverKey is the cover picture's blob name, "" for none.
	CoverKey string `table:"coverKey"`
	// AuthorKey is who wrote it: memberdata.Forgotten once they deleted
	// their account (AuthorName then is "").
	AuthorKey  string `table:"authorKey"`
	AuthorName string `table:"authorName"`
	// Tags are the post's tags, comma-separated, in the order given.
	Tags string `table:"tags"`
	// Minutes is the reading time.
	Minutes   int       `table:"minutes"`
	Published bool      `table:"published"`
	PublishAt time.Time `table:"publishAt"`
	UpdatedAt time.Time `table:"updatedAt"`
}

// TagList is the card's tags.
func (c Card) TagList() []string {
	if c.Tags == "" {
		return nil
	}
	return strings.Split(c.Tags, ",")
}

// PostRow is a post (BlogPosts): its address is its RowKey.
type PostRow struct {
	PartitionKey string `table:"PartitionKey"` // postsPart
	RowKey       string `table:"RowKey"`       // the address (slug)
	ETag         string `table:"ETag"`
	Card
	// Summary is the excerpt as the author wrote it ("": the body's first
	// words make the card's).
	Summary string `table:"summary"`
	Body    string `table:"body"` // Markdown
	// Pictures are the pictures uploaded for the text (pictures.go), their
	// blob names comma-separated, oldest first.
	Pictures  string    `table:"pictures"`
	CreatedAt time.Time `table:"createdAt"`
	// Announced: the followers were told of it (follow.go).
	Announced bool `table:"announced"`
	// Listed is the projection's record of the cards it wrote.
	Listed string `table:"listed"`
	// Deleted marks a post being deleted: gone for everyone, its row
	// stays until what it leaves (comments, pictures) is gone too (bury).
	Deleted bool `table:"deleted"`
}

// CardRow is a post's card in BlogIndex.
type CardRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"` // reversed publication time|slug, or the slug (drafts)
	Slug         string `table:"slug"`
	Card
}
