package prompts

import (
	"net/http"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// Rows written by other tools may use another compatible EDM type (Int32
// for Int64, a whole Double, "true" for a bool), or hold a value that fits
// nothing. The catalog, the form and the tag admin still load: compatible
// rows read as they are, and an unreadable one is left out with a warning,
// so an admin can reach the pages that repair it.
func TestPagesSurviveRowsWrittenByOtherTools(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	author := a.signIn(t, "ann@example.com")
	p := a.mustCreate(t, author.key, Input{Title: "Healthy prompt", Text: "Say {{x}}.", Tags: []string{"writing"}, Visibility: string(Public)})

	tags := a.Store.Table(tagCatalogTable)
	pk, rk := tagCatalogKey("writing")
	if _, err := tags.Upsert(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{
		"SortOrder": int32(1), "PromptCount": 1.0, "IsActive": "true",
	}}, storage.Merge); err != nil {
		t.Fatal(err)
	}
	pk, rk = tagCatalogKey("broken")
	if _, err := tags.Upsert(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{
		"Tag": "broken", "DisplayName": "Broken", "IsActive": "maybe", "SortOrder": 2.5,
	}}, storage.Replace); err != nil {
		t.Fatal(err)
	}
	newest := a.Store.Table(newestIndexTable)
	all, err := storage.All[NewestRow](ctx, newest, storage.Query{Scan: true})
	var rows []NewestRow
	for _, r := range all {
		if r.PromptID == p.PromptID {
			rows = append(rows, r)
		}
	}
	if err != nil || len(rows) != 1 {
		t.Fatalf("newest index: %d rows of the prompt, %v", len(rows), err)
	}
	if _, err := newest.Upsert(ctx, storage.Entity{PartitionKey: rows[0].PartitionKey, RowKey: rows[0].RowKey, Props: map[string]any{
		"Likes": 0.0, "Dislikes": int32(0),
	}}, storage.Merge); err != nil {
		t.Fatal(err)
	}
	if _, err := newest.Upsert(ctx, storage.Entity{PartitionKey: rows[0].PartitionKey, RowKey: rows[0].RowKey + "x", Props: map[string]any{
		"PromptId": "garbage", "Title": "Garbage", "Likes": "lots",
	}}, storage.Replace); err != nil {
		t.Fatal(err)
	}

	boss := a.signIn(t, bossEmail)
	for _, c := range []struct {
		who  user
		path string
		want string
	}{
		{author, "/prompts", "Healthy prompt"},
		{author, "/prompts?sort=liked", "Healthy prompt"},
		{author, "/prompts?tag=writing", "Healthy prompt"},
		{author, "/prompts/" + p.PromptID, "Healthy prompt"},
		{author, "/prompts/new", "writing"},
		{boss, "/admin/tags", "writing"},
	} {
		res := c.who.c.Get(c.path)
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Body, c.want) {
			t.Errorf("%s: %d, has %q: %v", c.path, res.StatusCode, c.want, strings.Contains(res.Body, c.want))
		}
		if strings.Contains(res.Body, "Garbage") {
			t.Errorf("%s shows the unreadable row", c.path)
		}
	}
}
