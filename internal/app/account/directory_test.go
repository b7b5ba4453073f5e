package account_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/storage"
)

// directoryPK is the Users partition of a memberKey, as documented:
// "user|" and the first hex digit of sha256(memberKey).
func directoryPK(memberKey string) string {
	sum := sha256.Sum256([]byte(memberKey))
	return "user|" + hex.EncodeToString(sum[:])[:1]
}

// directory reads every directory row through the paged listing.
func directory(t *testing.T, s *account.Service) map[string]account.DirectoryRow {
	t.Helper()
	out := map[string]account.DirectoryRow{}
	var cur *storage.Cursor
	for {
		rows, next, err := s.ListUsers(ctx, cur, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if _, dup := out[r.RowKey]; dup {
				t.Fatalf("%s listed twice", r.RowKey)
			}
			out[r.RowKey] = r
		}
		if next == nil {
			return out
		}
		cur = next
	}
}

func TestFirstSignInCreatesTheAccount(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const key = "auth:01TESTFIRSTSIGNIN"
	st, err := a.Accounts.OnSignIn(ctx, key, "first@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	if st.DisplayName != "first" || !st.Enabled || st.Admin || st.Language != "" || st.AvatarURL != "" {
		t.Errorf("state %+v", st)
	}
	p, err := a.Accounts.Profile(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Enabled || p.Email != "first@example.com" || p.CreatedAt.IsZero() {
		t.Errorf("profile %+v", p)
	}
	s, err := a.Accounts.Settings(ctx, key)
	if err != nil || s.ETag == "" || s.ProfileVisibility != account.VisibilityMembers || s.Language != "" {
		t.Errorf("settings %+v (%v): not stored with the defaults", s, err)
	}
	d := directory(t, a.Accounts)[key]
	if d.PartitionKey != directoryPK(key) || d.DisplayName != "first" || d.Email != "first@example.com" || !d.Enabled {
		t.Errorf("directory row %+v", d)
	}

	// A later sign-in changes nothing.
	if _, err := a.Accounts.OnSignIn(ctx, key, "first@example.com", "Another Name"); err != nil {
		t.Fatal(err)
	}
	again, _ := a.Accounts.Profile(ctx, key)
	if again.ETag != p.ETag || again.DisplayName != "first" {
		t.Errorf("second sign-in rewrote the profile: %+v", again)
	}
	// Except a changed email, which follows into the directory.
	if _, err := a.Accounts.OnSignIn(ctx, key, "moved@example.com", ""); err != nil {
		t.Fatal(err)
	}
	moved, _ := a.Accounts.Profile(ctx, key)
	if moved.Email != "moved@example.com" || moved.DisplayName != "first" {
		t.Errorf("after an email change %+v", moved)
	}
	if d := directory(t, a.Accounts)[key]; d.Email != "moved@example.com" {
		t.Errorf("directory email %q", d.Email)
	}
}

func TestSignInRepairsAMissingDirectoryRow(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const key = "auth:01TESTREPAIR"
	if _, err := a.Accounts.OnSignIn(ctx, key, "r@example.com", "R"); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.Table("Users").Delete(ctx, directoryPK(key), key, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Accounts.OnSignIn(ctx, key, "r@example.com", "R"); err != nil {
		t.Fatal(err)
	}
	if _, ok := directory(t, a.Accounts)[key]; !ok {
		t.Error("sign-in did not restore the directory row")
	}
}

func TestDirectoryFollowsTheProfile(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "dir@example.com")
	form := validProfile()
	form.Set("displayName", "Renamed Person")
	c.PostForm("/account/profile", c.WithCSRF("/account", form))
	if d := directory(t, a.Accounts)[key]; d.DisplayName != "Renamed Person" {
		t.Errorf("directory shows %q", d.DisplayName)
	}
	if _, err := a.Accounts.SetEnabled(ctx, key, false); err != nil {
		t.Fatal(err)
	}
	if d := directory(t, a.Accounts)[key]; d.Enabled {
		t.Error("directory still shows the account enabled")
	}
	if _, err := a.Accounts.SetRole(ctx, key, account.RoleAdmin, true); err != nil {
		t.Fatal(err)
	}
	if d := directory(t, a.Accounts)[key]; d.Role != account.RoleAdmin {
		t.Errorf("directory role %q", d.Role)
	}
}

func TestRebuildDirectory(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	keys := []string{"auth:01REBUILDA", "auth:01REBUILDB", "auth:01REBUILDC"}
	for i, k := range keys {
		if _, err := a.Accounts.OnSignIn(ctx, k, "p"+string(rune('a'+i))+"@example.com", "Person "+k[len(k)-1:]); err != nil {
			t.Fatal(err)
		}
	}
	users := a.Store.Table("Users")
	// A lost row, a stale row and a row whose profile is gone.
	if err := users.Delete(ctx, directoryPK(keys[0]), keys[0], storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	stale := storage.Entity{PartitionKey: directoryPK(keys[1]), RowKey: keys[1], Props: map[string]any{"displayName": "Old Name", "enabled": false}}
	if _, err := users.Upsert(ctx, stale, storage.Merge); err != nil {
		t.Fatal(err)
	}
	const ghost = "auth:01GHOST"
	if _, err := users.Insert(ctx, storage.Entity{PartitionKey: directoryPK(ghost), RowKey: ghost, Props: map[string]any{"displayName": "Ghost"}}); err != nil {
		t.Fatal(err)
	}

	report, err := a.Accounts.RebuildDirectory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if report != (account.RebuildReport{Profiles: 3, Written: 2, Removed: 1}) {
		t.Errorf("report %+v", report)
	}
	dir := directory(t, a.Accounts)
	if len(dir) != 3 {
		t.Errorf("%d rows, want 3", len(dir))
	}
	for _, k := range keys {
		p, _ := a.Accounts.Profile(ctx, k)
		d := dir[k]
		if d.DisplayName != p.DisplayName || d.Email != p.Email || !d.Enabled || !d.CreatedAt.Equal(p.CreatedAt) {
			t.Errorf("%s: %+v, profile %+v", k, d, p)
		}
	}
	// A second run has nothing to do.
	if report, _ := a.Accounts.RebuildDirectory(ctx); report != (account.RebuildReport{Profiles: 3}) {
		t.Errorf("second run %+v", report)
	}
}

func TestListUsersPagesWithoutRepeatsOrGaps(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	want := map[string]bool{}
	for i := 0; i < 40; i++ {
		k := "auth:01PAGE" + url.PathEscape(string(rune('A'+i%26))) + string(rune('a'+i/26))
		if _, err := a.Accounts.OnSignIn(ctx, k, "", "P"); err != nil {
			t.Fatal(err)
		}
		want[k] = true
	}
	got := directory(t, a.Accounts) // fails on a repeat
	if len(got) != len(want) {
		t.Fatalf("%d listed, want %d", len(got), len(want))
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s missing", k)
		}
	}
	// A cursor naming a bucket outside the directory is refused.
	if _, _, err := a.Accounts.ListUsers(ctx, &storage.Cursor{Bucket: "user|z"}, 5); err == nil {
		t.Error("foreign bucket accepted")
	}
}

// A profile write that stopped before its directory row (injected by
// writing UserProfiles alone) is repaired from the profile.
func TestRepairDirectoryAfterAHalfFinishedWrite(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const key = "auth:01HALFWRITE"
	if _, err := a.Accounts.OnSignIn(ctx, key, "half@example.com", "Before"); err != nil {
		t.Fatal(err)
	}
	profiles := a.Store.Table("UserProfiles")
	e, err := profiles.Get(ctx, key, "profile")
	if err != nil {
		t.Fatal(err)
	}
	e.Props["displayName"] = "After"
	if _, err := profiles.Update(ctx, e, storage.Replace, e.ETag); err != nil {
		t.Fatal(err)
	}
	if d := directory(t, a.Accounts)[key]; d.DisplayName != "Before" {
		t.Fatalf("the injected crash left the directory at %q", d.DisplayName)
	}
	if err := a.Accounts.RepairDirectory(ctx, key); err != nil {
		t.Fatal(err)
	}
	if d := directory(t, a.Accounts)[key]; d.DisplayName != "After" {
		t.Errorf("after repair the directory shows %q", d.DisplayName)
	}
}

// TestARoleTakenAwayByABehindClockStillEnds: sessions keep the newest
// profile state by its time stamp, so a profile's stamp moves forward
// even when the instance writing it has a clock behind the one before:
// a role taken away then still leaves the open session.
func TestARoleTakenAwayByABehindClockStillEnds(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "role@example.com")
	admin := func() bool { return c.Get("/account").Doc(t).Find(testID("admin-link")).Length() == 1 }
	if _, err := a.Accounts.SetRole(ctx, key, account.RoleAdmin, true); err != nil {
		t.Fatal(err)
	}
	if !admin() {
		t.Fatal("the role given does not reach the session")
	}
	a.Clock.Advance(-time.Minute) // the next write comes from a clock a minute behind
	if _, err := a.Accounts.SetRole(ctx, key, account.RoleAdmin, false); err != nil {
		t.Fatal(err)
	}
	if admin() {
		t.Fatal("the role taken away stays in the session")
	}
}

// TestThePeoplePartitionFollowsTheProfile: an enabled account shown in
// People has a row in the directory's People partition, which ListPeople
// reads; hiding, disabling or a birth date taken away removes it; the
// rebuild writes a lost one and deletes one no profile implies.
func TestThePeoplePartitionFollowsTheProfile(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	keys := []string{"auth:01PEOPLEA", "auth:01PEOPLEB"}
	for i, k := range keys {
		if _, err := a.Accounts.OnSignIn(ctx, k, "q"+string(rune('a'+i))+"@example.com", "Person "+k[len(k)-1:]); err != nil {
			t.Fatal(err)
		}
		if errs, err := a.Accounts.UpdateProfile(ctx, k, account.ProfileInput{DisplayName: "Person", BirthDate: "1990-01-01", Gender: "female"}); err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		if _, err := a.Accounts.SetInPeople(ctx, k, true); err != nil {
			t.Fatal(err)
		}
	}
	shown := func() []string {
		t.Helper()
		rows, _, err := a.Accounts.ListPeople(ctx, account.PeopleFilter{Gender: "female", MinAge: 18, MaxAge: 99, Today: accounttest.Start}, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.RowKey)
		}
		return out
	}
	if got := shown(); len(got) != 2 {
		t.Fatalf("shown: %v", got)
	}
	if _, err := a.Accounts.SetEnabled(ctx, keys[0], false); err != nil {
		t.Fatal(err)
	}
	if got := shown(); len(got) != 1 || got[0] != keys[1] {
		t.Errorf("a disabled account is still shown: %v", got)
	}
	if errs, err := a.Accounts.UpdateProfile(ctx, keys[1], account.ProfileInput{DisplayName: "Person"}); err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if got := shown(); len(got) != 0 {
		t.Errorf("a profile without a birth date is still shown: %v", got)
	}
	if _, err := a.Accounts.SetEnabled(ctx, keys[0], true); err != nil {
		t.Fatal(err)
	}
	// A lost People row, and one no profile implies.
	users := a.Store.Table("Users")
	if err := users.Delete(ctx, account.PeoplePartition, account.PeopleRowKey(keys[0]), storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Insert(ctx, storage.Entity{PartitionKey: account.PeoplePartition, RowKey: account.PeopleRowKey(keys[1]), Props: map[string]any{"displayName": "Stale", "gender": "female", "birthDate": "1990-01-01"}}); err != nil {
		t.Fatal(err)
	}
	if got := shown(); len(got) != 1 || got[0] != keys[1] {
		t.Fatalf("the set-up: %v", got)
	}
	if _, err := a.Accounts.RebuildDirectory(ctx); err != nil {
		t.Fatal(err)
	}
	if got := shown(); len(got) != 1 || got[0] != keys[0] {
		t.Errorf("after the rebuild: %v, want %s alone", got, keys[0])
	}
}

// showInPeople makes n accounts shown in People and returns their keys.
func showInPeople(t *testing.T, a *accounttest.App, n int) []string {
	t.Helper()
	var keys []string
	for i := range n {
		k := fmt.Sprintf("auth:01RING%02d", i)
		if _, err := a.Accounts.OnSignIn(ctx, k, fmt.Sprintf("ring%d@example.com", i), "Ring"); err != nil {
			t.Fatal(err)
		}
		if errs, err := a.Accounts.UpdateProfile(ctx, k, account.ProfileInput{DisplayName: "Ring", BirthDate: "1990-01-01"}); err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		if _, err := a.Accounts.SetInPeople(ctx, k, true); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

// TestPeopleListingsWrapAroundTheirStart: a listing of People begins at
// its From and wraps around, page by page, each person once; a page
// asked for with another From (the next day) goes on as its cursor
// began; two starts give two orders.
func TestPeopleListingsWrapAroundTheirStart(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	keys := showInPeople(t, a, 10)
	// The order from a start: by the rows' keys, those at or after the
	// start first.
	slices.SortFunc(keys, func(x, y string) int { return strings.Compare(account.PeopleRowKey(x), account.PeopleRowKey(y)) })
	start := account.PeopleRowKey(keys[6])[:4]
	want := append(slices.Clone(keys[6:]), keys[:6]...)
	if account.PeopleRowKey(keys[5])[:4] == start {
		t.Fatal("the set-up: two people share a spread")
	}
	list := func(from string, cursor *storage.Cursor) ([]string, *storage.Cursor) {
		t.Helper()
		rows, next, err := a.Accounts.ListPeople(ctx, account.PeopleFilter{From: from, Today: accounttest.Start}, cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.RowKey)
		}
		return got, next
	}
	var got []string
	var cursor *storage.Cursor
	for page := 0; page == 0 || cursor != nil; page++ {
		from := start
		if page == 2 {
			from = "0000" // a new day's start, past the wrap of the first
		}
		rows, next := list(from, cursor)
		got, cursor = append(got, rows...), next
		if page > 5 {
			t.Fatal("the listing does not end")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("from %s: %v, want %v", start, got, want)
	}
	if first, _ := list("0000", nil); first[0] != keys[0] {
		t.Errorf("from the beginning: %v first, want %s", first, keys[0])
	}
	// The person's own row: read by their key.
	if row, err := a.Accounts.InPeople(ctx, keys[3]); err != nil || row.RowKey != keys[3] {
		t.Errorf("InPeople: %q, %v", row.RowKey, err)
	}
}

// TestPeopleRowsMoveToTheirSpreadAtStart: People rows keyed before the
// spread (the legacy partition, RowKey the memberKey) move to their keys
// when the module starts (Seed).
func TestPeopleRowsMoveToTheirSpreadAtStart(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	keys := showInPeople(t, a, 3)
	users := a.Store.Table("Users")
	for _, k := range keys {
		row, err := users.Get(ctx, account.PeoplePartition, account.PeopleRowKey(k))
		if err != nil {
			t.Fatal(err)
		}
		if err := users.Delete(ctx, row.PartitionKey, row.RowKey, storage.AnyETag); err != nil {
			t.Fatal(err)
		}
		row.PartitionKey, row.RowKey = account.LegacyPeoplePartition, k
		if _, err := users.Insert(ctx, row); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Accounts.InPeople(ctx, keys[0]); err == nil {
		t.Fatal("the set-up: the new row is still there")
	}
	if err := a.Accounts.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	left, err := storage.All[account.DirectoryRow](ctx, users, storage.Query{PartitionKey: account.LegacyPeoplePartition})
	if err != nil || len(left) != 0 {
		t.Errorf("legacy rows left: %d (%v)", len(left), err)
	}
	rows, _, err := a.Accounts.ListPeople(ctx, account.PeopleFilter{Today: accounttest.Start}, nil, 10)
	if err != nil || len(rows) != len(keys) {
		t.Errorf("listed after the move: %d (%v)", len(rows), err)
	}
	for _, k := range keys {
		if _, err := a.Accounts.InPeople(ctx, k); err != nil {
			t.Errorf("InPeople(%s) after the move: %v", k, err)
		}
	}
}
