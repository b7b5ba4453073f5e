package prompts

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/storage"
)

// Table names this module owns (documents 001 and 002, TABLES.md "Prompts").
const (
	promptsTable        = "Prompts"
	votesTable          = "PromptVotes"
	tagIndexTable       = "TagIndex"
	newestIndexTable    = "PublicPromptsNewestIndex"
	likedIndexTable     = "PublicPromptsMostLikedIndex"
	titleSearchTable    = "TitleSearchIndex"
	tagCatalogTable     = "TagCatalog"
	tagCatalogPartition = "tagcatalog"
)

// Visibility is who may see a prompt.
type Visibility = string

const (
	Public  Visibility = "public"
	Private Visibility = "private"
)

// PromptRow is the canonical prompt, the truth every index is rebuilt from.
type PromptRow struct {
	PartitionKey    string    `table:"PartitionKey"` // "u|{authorId}"
	RowKey          string    `table:"RowKey"`       // promptId (ULID)
	ETag            string    `table:"ETag"`
	PromptID        string    `table:"PromptId"`
	AuthorID        string    `table:"AuthorId"` // the author's memberKey
	Title           string    `table:"Title"`
	TitleNormalized string    `table:"TitleNormalized"`
	PromptText      string    `table:"PromptText"`
	Tags            string    `table:"Tags"` // "tag-a;tag-b"
	Visibility      string    `table:"Visibility"`
	CreatedAt       time.Time `table:"CreatedAt"`
	UpdatedAt       time.Time `table:"UpdatedAt"`
	IsDeleted       bool      `table:"IsDeleted"`
	Likes           int64     `table:"Likes"`
	Dislikes        int64     `table:"Dislikes"`
}

// promptKey is the Prompts key: PK "u|{authorId}", RK promptId.
func promptKey(authorID, promptID string) (pk, rk string) {
	return authorPartition(authorID), promptID
}

// authorPartition is an author's Prompts partition ("My prompts").
func authorPartition(authorID string) string { return "u|" + storage.EscapeKey(authorID) }

// titleClaimPrefix starts the row keys of title claims. Lower-case letters
// sort after every ULID character, so "My prompts" reads promptIds below it.
const titleClaimPrefix = "title|"

// TitleClaimRow reserves a normalised title in its author's Prompts
// partition. It is written in the same transaction as the prompt, which
// makes "same author, same title" impossible even under concurrent creates.
type TitleClaimRow struct {
	PartitionKey string `table:"PartitionKey"` // "u|{authorId}"
	RowKey       string `table:"RowKey"`       // "title|{normalized title}"
	ETag         string `table:"ETag"`
	PromptID     string `table:"PromptId"`
}

// titleClaimKey is the title claim key: PK "u|{authorId}", RK "title|{normalized}".
func titleClaimKey(authorID, normalized string) (pk, rk string) {
	return authorPartition(authorID), titleClaimPrefix + storage.EscapeKey(normalized)
}

// PromptLookupRow finds a prompt's author from its id, so a shared link
// carries only the promptId. It lives in the Prompts table.
type PromptLookupRow struct {
	PartitionKey string `table:"PartitionKey"` // "id|{promptId}"
	RowKey       string `table:"RowKey"`       // "author"
	ETag         string `table:"ETag"`
	PromptID     string `table:"PromptId"`
	AuthorID     string `table:"AuthorId"`
}

// promptLookupKey is the lookup key: PK "id|{promptId}", RK "author".
func promptLookupKey(promptID string) (pk, rk string) { return "id|" + promptID, "author" }

// VoteRow is one person's vote on one prompt (a later slice writes it).
type VoteRow struct {
	PartitionKey string    `table:"PartitionKey"` // "p|{promptId}"
	RowKey       string    `table:"RowKey"`       // "u|{voterId}"
	ETag         string    `table:"ETag"`
	PromptID     string    `table:"PromptId"`
	VoterID      string    `table:"VoterId"`
	VoteValue    int64     `table:"VoteValue"` // -1, 0, 1
	UpdatedAt    time.Time `table:"UpdatedAt"`
}

// voteKey is the PromptVotes key: PK "p|{promptId}", RK "u|{voterId}".
func voteKey(promptID, voterID string) (pk, rk string) {
	return "p|" + promptID, "u|" + storage.EscapeKey(voterID)
}

// TagIndexRow lists a prompt under one of its tags.
type TagIndexRow struct {
	PartitionKey string    `table:"PartitionKey"` // "t|{tag}"
	RowKey       string    `table:"RowKey"`       // promptId
	ETag         string    `table:"ETag"`
	Tag          string    `table:"Tag"`
	PromptID     string    `table:"PromptId"`
	AuthorID     string    `table:"AuthorId"`
	Visibility   string    `table:"Visibility"`
	CreatedAt    time.Time `table:"CreatedAt"`
	Likes        int64     `table:"Likes"`
	Dislikes     int64     `table:"Dislikes"`
	IsDeleted    bool      `table:"IsDeleted"`
}

// tagIndexKey is the TagIndex key: PK "t|{tag}", RK promptId.
func tagIndexKey(tag, promptID string) (pk, rk string) {
	return "t|" + storage.EscapeKey(tag), promptID
}

// NewestRow is a public prompt in the newest-first catalog.
type NewestRow struct {
	PartitionKey    string    `table:"PartitionKey"` // "pub|newest|{yyyyMM}"
	RowKey          string    `table:"RowKey"`       // "{ReverseTicks(createdAt)}|{promptId}"
	ETag            string    `table:"ETag"`
	PromptID        string    `table:"PromptId"`
	AuthorID        string    `table:"AuthorId"`
	Title           string    `table:"Title"`
	TitleNormalized string    `table:"TitleNormalized"`
	Tags            string    `table:"Tags"`
	CreatedAt       time.Time `table:"CreatedAt"`
	UpdatedAt       time.Time `table:"UpdatedAt"`
	Likes           int64     `table:"Likes"`
	Dislikes        int64     `table:"Dislikes"`
}

// newestPartition is a month bucket of the newest index.
func newestPartition(month string) string { return "pub|newest|" + month }

// newestKey is the newest index key of a prompt created at createdAt.
func newestKey(createdAt time.Time, promptID string) (pk, rk string) {
	return newestPartition(storage.MonthBucket(createdAt)), storage.ReverseTicks(createdAt) + "|" + promptID
}

// catalogMetaKey holds the catalog's first month, the oldest bucket a
// newest walk visits. It sits in the newest index under a partition no
// month bucket can take, so walks never read it.
func catalogMetaKey() (pk, rk string) { return "pub|newest|meta", "first-month" }

// CatalogMetaRow is the newest index's meta row.
type CatalogMetaRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	FirstMonth   string `table:"FirstMonth"` // yyyyMM
}

// LikedRow is a public prompt in the most-liked catalog (a later slice
// maintains it).
type LikedRow struct {
	PartitionKey string    `table:"PartitionKey"` // "pub|liked|{scoreBucket}"
	RowKey       string    `table:"RowKey"`       // "{scoreDesc}|{createdAtTicksDesc}|{promptId}"
	ETag         string    `table:"ETag"`
	PromptID     string    `table:"PromptId"`
	AuthorID     string    `table:"AuthorId"`
	Title        string    `table:"Title"`
	Tags         string    `table:"Tags"`
	CreatedAt    time.Time `table:"CreatedAt"`
	Likes        int64     `table:"Likes"`
	Dislikes     int64     `table:"Dislikes"`
	Score        int64     `table:"Score"`
}

// Score buckets of the most-liked index.
const (
	scoreBucketWidth = 4
	scoreBucketSize  = 10
	maxScore         = 9_999_999
)

// likedKey is the most-liked key. Negative scores share bucket 0.
func likedKey(score int64, createdAt time.Time, promptID string) (pk, rk string) {
	clamped := min(max(score, 0), maxScore)
	return "pub|liked|" + storage.Pad(clamped/scoreBucketSize, scoreBucketWidth),
		storage.Pad(maxScore-clamped, 7) + "|" + storage.ReverseTicks(createdAt) + "|" + promptID
}

// TitleTokenRow lists a public prompt under one title token or prefix.
type TitleTokenRow struct {
	PartitionKey string    `table:"PartitionKey"` // "q|{token}"
	RowKey       string    `table:"RowKey"`       // promptId
	ETag         string    `table:"ETag"`
	Token        string    `table:"Token"`
	PromptID     string    `table:"PromptId"`
	Visibility   string    `table:"Visibility"`
	AuthorID     string    `table:"AuthorId"`
	IsDeleted    bool      `table:"IsDeleted"`
	CreatedAt    time.Time `table:"CreatedAt"`
}

// titleTokenKey is the TitleSearchIndex key: PK "q|{token}", RK promptId.
func titleTokenKey(token, promptID string) (pk, rk string) {
	return "q|" + storage.EscapeKey(token), promptID
}

// TagRow is one tag of the catalog.
type TagRow struct {
	PartitionKey string `table:"PartitionKey"` // "tagcatalog"
	RowKey       string `table:"RowKey"`       // tag
	ETag         string `table:"ETag"`
	Tag          string `table:"Tag"`
	IsActive     bool   `table:"IsActive"`
	DisplayName  string `table:"DisplayName"`   // English
	DisplayNameR string `table:"DisplayNameRu"` // Russian
	SortOrder    int64  `table:"SortOrder"`
}

// tagCatalogKey is the TagCatalog key: PK "tagcatalog", RK tag.
func tagCatalogKey(tag string) (pk, rk string) { return tagCatalogPartition, tag }

// newPromptID mints a prompt id: a ULID, so ids sort by creation.
func newPromptID() string { return ulid.Make().String() }

// validPromptID reports whether s can be a prompt id; anything else is a
// 404 before any storage call.
func validPromptID(s string) bool {
	_, err := ulid.ParseStrict(s)
	return err == nil && len(s) == ulid.EncodedSize
}
