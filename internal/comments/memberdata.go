package comments

import (
	"context"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Author is the name a page shows for r's author: "Deleted member" for
// one who deleted their account.
func (r Row) Author(ctx context.Context) string {
	return memberdata.Name(ctx, r.AuthorKey, r.AuthorName)
}

// byAuthor is the query of every comment memberKey wrote, in every
// thread of the table: a scan, for an account's export and deletion.
func byAuthor(memberKey string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "authorKey", Op: storage.Eq, Value: memberKey}}}
}

// Authored is every comment and reply memberKey wrote in any of t's
// threads, thread by thread: what their data archive holds.
func (t Thread) Authored(ctx context.Context, memberKey string) ([]Row, error) {
	return storage.All[Row](ctx, t.Table, byAuthor(memberKey))
}

// ForgetAuthor is an account's deletion in t's threads: memberKey's
// comments and replies stay for the threads they are in, written by
// memberdata.Forgotten with no name kept, and their count against the
// Limit goes. Each comment is rewritten at its ETag, one at a time, so a
// run that stops part way is finished by the next; one run after
// another changes nothing.
func (t Thread) ForgetAuthor(ctx context.Context, memberKey string) error {
	if memberKey == "" || memberdata.IsForgotten(memberKey) {
		return nil
	}
	err := memberdata.Rewrite(ctx, t.Table, byAuthor(memberKey), func(c *Row) error {
		if c.AuthorKey != memberKey {
			return storage.ErrNoChange
		}
		c.AuthorKey, c.AuthorName = memberdata.Forgotten, ""
		return nil
	})
	if err != nil || t.Limit.Table == nil {
		return err
	}
	return storage.Forget(ctx, t.Limit.Table, t.LimitPrefix+memberKey, "w")
}
