package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
)

const migrateUsage = "usage: web migrate keys [--dry-run] | comments [settings flags]"

// migrateSubjects are the modules' migrations (platform.Migrator) beside
// "keys", known before anything is opened so that a bad command line
// touches nothing; a test keeps the list equal to the app's.
var migrateSubjects = []string{"comments"}

// migrateCmd is "web migrate keys" or a module's migration. "keys" is a
// one-off rewrite of data written before keys were escaped without '%'
// (see storage.EscapeKey and auth.AuthMemberKey). It scans every table,
// moves each row whose keys change to its new keys (write the new row,
// then delete the old one, so a rerun finishes an interrupted run),
// rewrites memberKeys held in properties and profile photos' blob
// names, and then rebuilds the derived tables (prompt indexes, the Users
// directory). "comments" moves the appointments' comments written before
// the comments kit to its keys (groups.MigrateComments). Running either
// twice changes nothing the second time.
func migrateCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		return flag.ErrHelp
	}
	subject, args := subjectOf(args)
	if slices.Contains(migrateSubjects, subject) {
		return moduleMigrateCmd(ctx, subject, args, env, stdout, stderr)
	}
	if subject != "keys" {
		return unknownSubject("migrate", subject, migrateUsage, append([]string{"keys"}, migrateSubjects...)...)
	}
	own, args := splitFlags(args, "dry-run")
	fs := flag.NewFlagSet("migrate keys", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dry := fs.Bool("dry-run", false, "report what would change and write nothing")
	if err := fs.Parse(own); err != nil {
		return usagef("%v", err)
	}
	a, closeStore, err := openCommandApp(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	rep, err := migrateKeys(ctx, a.Built.Core.Store, a.Tables, []string{"profile-images"}, *dry, a.Built.Core.Log)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, rep)
	if *dry || rep.rows+rep.props+rep.blobs == 0 {
		return nil
	}
	for _, r := range a.Rebuilders {
		out, err := r.Rebuild(ctx)
		if err != nil {
			return fmt.Errorf("rebuild %s: %w", r.RebuildSubject(), err)
		}
		fmt.Fprintf(stdout, "rebuilt %s: %v\n", r.RebuildSubject(), out)
	}
	return nil
}

// moduleMigrateCmd runs the module migration subject and prints what it
// moved.
func moduleMigrateCmd(ctx context.Context, subject string, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	a, closeStore, err := openCommandApp(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	i := slices.IndexFunc(a.Built.Migrators, func(m platform.Migrator) bool { return m.MigrateSubject() == subject })
	if i < 0 {
		return fmt.Errorf("the app has no migration %q", subject)
	}
	rep, err := a.Built.Migrators[i].Migrate(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, rep)
	return err
}

// migrateReport counts what the key migration changed (or would change).
type migrateReport struct {
	scanned, rows, props, blobs int
	dry                         bool
}

func (r migrateReport) String() string {
	verb := "rewrote"
	if r.dry {
		verb = "would rewrite"
	}
	return fmt.Sprintf("keys: scanned %d rows; %s %d rows under new keys, %d rows' member references, %d blobs",
		r.scanned, verb, r.rows, r.props, r.blobs)
}

// migrateKeys rewrites every row of tables and every blob of containers
// whose keys or names migrateKeyText changes.
func migrateKeys(ctx context.Context, store *storage.Store, tables, containers []string, dry bool, log *slog.Logger) (migrateReport, error) {
	rep := migrateReport{dry: dry}
	for _, name := range tables {
		tbl := store.Table(name)
		var rows []storage.Entity
		err := tbl.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
			rep.scanned++
			rows = append(rows, e)
			return nil
		})
		if err != nil {
			return rep, fmt.Errorf("scan %s: %w", name, err)
		}
		for _, e := range rows {
			if err := migrateRow(ctx, tbl, e, dry, &rep); err != nil {
				return rep, fmt.Errorf("%s (%q, %q): %w", name, e.PartitionKey, e.RowKey, err)
			}
		}
	}
	for _, name := range containers {
		c := store.Container(name)
		blobs, err := c.List(ctx, "")
		if errors.Is(err, storage.ErrNotFound) {
			continue
		} else if err != nil {
			return rep, err
		}
		for _, b := range blobs {
			to := migrateValue(b.Name)
			if to == b.Name {
				continue
			}
			rep.blobs++
			if dry {
				continue
			}
			blob, err := c.Get(ctx, b.Name)
			if err != nil {
				return rep, err
			}
			if _, err := c.Put(ctx, to, blob.Data, blob.ContentType); err != nil {
				return rep, fmt.Errorf("blob %s: %w", to, err)
			}
			if err := c.Delete(ctx, b.Name); err != nil && !errors.Is(err, storage.ErrNotFound) {
				return rep, err
			}
		}
	}
	log.InfoContext(ctx, "key migration", "report", rep.String())
	return rep, nil
}

// migrateRow moves one row to its new keys, or rewrites the member
// references in its properties.
func migrateRow(ctx context.Context, tbl *storage.Table, e storage.Entity, dry bool, rep *migrateReport) error {
	pk, rk := migrateKeyText(e.PartitionKey), migrateKeyText(e.RowKey)
	props := map[string]any{}
	changed := false
	for k, v := range e.Props {
		if s, ok := v.(string); ok {
			if to := migrateValue(s); to != s {
				v, changed = to, true
			}
		}
		props[k] = v
	}
	switch {
	case pk != e.PartitionKey || rk != e.RowKey:
		rep.rows++
		if dry {
			return nil
		}
		if _, err := tbl.Upsert(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: props}, storage.Replace); err != nil {
			return err
		}
		err := tbl.DeleteLegacy(ctx, e.PartitionKey, e.RowKey, e.ETag)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		return err
	case changed:
		rep.props++
		if dry {
			return nil
		}
		_, err := tbl.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: props}, storage.Replace, e.ETag)
		return err
	}
	return nil
}

// migrateKeyText maps a key of the old scheme to the new one. Old keys
// joined parts with '|' and escaped each user-derived part with %XX
// (including '%' itself); a memberKey was "auth:" and the escaped subject,
// and in two places (AppointmentParticipants' "m:{memberKey}" row keys and
// prompts' "u|{memberKey}" parts) it was escaped a second time. The new
// scheme escapes with '~XX' (storage.EscapeKey), hashes long or unusual
// subjects (auth.AuthMemberKey), and puts a memberKey in keys as it is.
func migrateKeyText(k string) string {
	parts := strings.Split(k, "|")
	for i, p := range parts {
		switch {
		case i > 0 && parts[i-1] == "u" && strings.HasPrefix(p, "auth:"):
			parts[i] = migrateMemberKey(oldUnescape(p))
		case strings.HasPrefix(p, "m:auth:"):
			parts[i] = "m:" + migrateMemberKey(oldUnescape(p[len("m:"):]))
		case strings.HasPrefix(p, "auth:"):
			parts[i] = migrateMemberKey(p)
		case strings.Contains(p, "%"):
			parts[i] = storage.EscapeKey(oldUnescape(p))
		}
	}
	return strings.Join(parts, "|")
}

// migrateValue maps a property value or blob name that starts with an old
// memberKey ("auth:a%2Fb", or a photo's "auth:a%2Fb/{id}.jpg") to the new
// memberKey; anything else is returned as it is.
func migrateValue(s string) string {
	if !strings.HasPrefix(s, "auth:") {
		return s
	}
	mk, rest, _ := strings.Cut(s, "/")
	if rest != "" {
		rest = "/" + rest
	}
	return migrateMemberKey(mk) + rest
}

// migrateMemberKey maps an old memberKey to the new one. A key already in
// the new form comes back unchanged.
func migrateMemberKey(mk string) string {
	if auth.IsAuthMemberKey(mk) {
		return mk
	}
	return auth.AuthMemberKey(oldUnescape(strings.TrimPrefix(mk, "auth:")))
}

// oldUnescape decodes the old scheme's %XX escapes; text that is not a
// valid escape is kept as it is.
func oldUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
