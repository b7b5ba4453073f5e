package account

// "Download my data": a zip of what Harmony keeps about the member, the
// account's own files and each module's folder (memberdata.Exporter).

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
)

// DownloadEvery is how often one account may download its data: the
// archive reads every module's rows of the member.
const DownloadEvery = 10 * time.Minute

// ErrDownloadPace refuses a download within DownloadEvery of the last
// (429).
var ErrDownloadPace = fault.New(http.StatusTooManyRequests, "account.data.error.pace", "account: a data download too soon after the last", "minutes", int(DownloadEvery/time.Minute))

// zipArchive is memberdata.Archive on a zip being written: each name a
// clean relative path in a folder, once.
type zipArchive struct {
	z       *zip.Writer
	at      time.Time
	names   map[string]bool
	folders []string
}

func newZipArchive(w io.Writer, at time.Time) *zipArchive {
	return &zipArchive{z: zip.NewWriter(w), at: at, names: map[string]bool{}}
}

// JSON writes v, indented, as the file name.
func (a *zipArchive) JSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("account: archive %s: %w", name, err)
	}
	return a.File(name, bytes.NewReader(append(b, '\n')))
}

// File copies r to the file name.
func (a *zipArchive) File(name string, r io.Reader) error {
	folder, _, ok := strings.Cut(name, "/")
	if !ok || folder == "" || path.Clean(name) != name || strings.HasPrefix(name, "../") || a.names[name] {
		return fmt.Errorf("account: archive: bad or repeated file name %q", name)
	}
	a.names[name] = true
	if !slices.Contains(a.folders, folder) {
		a.folders = append(a.folders, folder)
	}
	w, err := a.z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: a.at})
	if err == nil {
		_, err = io.Copy(w, r)
	}
	if err != nil {
		return fmt.Errorf("account: archive %s: %w", name, err)
	}
	return nil
}

// close writes README.txt, which says in the reader's language what each
// folder holds, and ends the zip.
func (a *zipArchive) close(ctx context.Context) error {
	var b strings.Builder
	b.WriteString(i18n.T(ctx, "account.data.readme.intro", "date", i18n.Date(ctx, a.at)))
	b.WriteString("\n\n")
	for _, f := range a.folders {
		key := "account.data.part." + f
		if part := i18n.T(ctx, key); part != key {
			fmt.Fprintf(&b, "%s/\n    %s\n", f, part)
		} else {
			fmt.Fprintf(&b, "%s/\n", f)
		}
	}
	b.WriteString("\n" + i18n.T(ctx, "account.data.readme.outro") + "\n")
	w, err := a.z.CreateHeader(&zip.FileHeader{Name: "README.txt", Method: zip.Deflate, Modified: a.at})
	if err == nil {
		_, err = io.WriteString(w, b.String())
	}
	if err != nil {
		return err
	}
	return a.z.Close()
}

// WriteArchive writes memberKey's data archive to w: the account's files,
// each Exporter's folder, and README.txt. An error leaves w holding no
// whole zip (the zip's directory is written last), so the caller sends
// nothing of it.
func (s *Service) WriteArchive(ctx context.Context, memberKey, sessionID string, w io.Writer) error {
	p, err := s.Profile(ctx, memberKey)
	if err != nil {
		return err
	}
	a := newZipArchive(w, s.now().UTC())
	if err := s.exportOwn(ctx, p, sessionID, a); err != nil {
		return err
	}
	m := MemberOf(p)
	for _, e := range s.data.Exporters {
		if err := e.ExportMember(ctx, m, a); err != nil {
			return fmt.Errorf("account: export %s: %T: %w", memberKey, e, err)
		}
	}
	return a.close(ctx)
}

// The account's files, in readable field names.
type (
	profileExport struct {
		DisplayName string `json:"displayName"`
		Email       string `json:"email,omitempty"`
		Bio         string `json:"bio,omitempty"`
		Location    string `json:"location,omitempty"`
		Gender      string `json:"gender,omitempty"`
		BirthDate   string `json:"birthDate,omitempty"`
		Timezone    string `json:"timezone,omitempty"`
		Role        string `json:"role,omitempty"`
		ShownIn     bool   `json:"shownInPeople"`
		Point       *Point `json:"sharedLocation,omitempty"`
		Photo       string `json:"photo,omitempty"`
		// Answers are the People card's questions and answers.
		Answers   json.RawMessage `json:"peopleAnswers,omitempty"`
		CreatedAt time.Time       `json:"createdAt"`
	}
	settingsExport struct {
		ProfileVisibility    string   `json:"profileVisibility"`
		AnonymousLikes       bool     `json:"anonymousLikes"`
		Language             string   `json:"language,omitempty"`
		NotificationsEnabled bool     `json:"notifications"`
		EmailNotifications   bool     `json:"emailNotifications"`
		EmailAbout           []string `json:"emailAbout"`
	}
	preferencesExport struct {
		AgeRangeMin   int    `json:"ageMin"`
		AgeRangeMax   int    `json:"ageMax"`
		MaxDistanceKm int    `json:"maxDistanceKm"`
		ShowMe        string `json:"showMe"`
	}
	sessionExport struct {
		Browser    string    `json:"browser,omitempty"`
		OS         string    `json:"os,omitempty"`
		SignedInAt time.Time `json:"signedInAt"`
		LastSeenAt time.Time `json:"lastSeenAt"`
		ThisOne    bool      `json:"thisDevice,omitempty"`
	}
)

// exportOwn writes the account folder: profile, settings, preferences,
// the devices signed in, and the profile photo.
func (s *Service) exportOwn(ctx context.Context, p ProfileRow, sessionID string, a memberdata.Archive) error {
	memberKey := p.PartitionKey
	out := profileExport{
		DisplayName: p.DisplayName, Email: p.Email, Bio: p.Bio, Location: p.Location, Gender: p.Gender,
		BirthDate: p.BirthDate, Timezone: p.Timezone, Role: p.Role, ShownIn: p.InPeople,
		Point: pointOf(p.Lat, p.Lon), CreatedAt: p.CreatedAt,
	}
	if json.Valid([]byte(p.Answers)) {
		out.Answers = json.RawMessage(p.Answers)
	}
	if p.PhotoKey != "" {
		out.Photo = "photo.jpg"
	}
	if err := a.JSON("account/profile.json", out); err != nil {
		return err
	}
	st, err := s.Settings(ctx, memberKey)
	if err != nil {
		return err
	}
	if err := a.JSON("account/settings.json", settingsExport{
		ProfileVisibility: st.ProfileVisibility, AnonymousLikes: st.AnonymousLikes, Language: st.Language,
		NotificationsEnabled: st.NotificationsEnabled, EmailNotifications: st.EmailNotifications, EmailAbout: st.EmailAbout(),
	}); err != nil {
		return err
	}
	pr, err := s.Preferences(ctx, memberKey)
	if err != nil {
		return err
	}
	if err := a.JSON("account/preferences.json", preferencesExport{pr.AgeRangeMin, pr.AgeRangeMax, pr.MaxDistanceKm, pr.ShowMe}); err != nil {
		return err
	}
	list, err := s.sessions.ListSessions(ctx, memberKey, sessionID)
	if err != nil {
		return err
	}
	devices := make([]sessionExport, 0, len(list))
	for _, x := range list {
		d := ParseUserAgent(x.UserAgent)
		devices = append(devices, sessionExport{Browser: d.Browser, OS: d.OS, SignedInAt: x.CreatedAt, LastSeenAt: x.LastSeenAt, ThisOne: x.Current})
	}
	if err := a.JSON("account/sessions.json", devices); err != nil {
		return err
	}
	if p.PhotoKey == "" {
		return nil
	}
	_, file, _ := strings.Cut(p.PhotoKey, "/")
	blob, err := s.photos.Get(ctx, memberKey, file)
	if err != nil {
		return err
	}
	return a.File("account/photo.jpg", bytes.NewReader(blob.Data))
}
