package blog

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Pictures in a post's text: the editor uploads them one by one to the
// post (kept in two sizes in blog-images under the post's id, like the
// cover), and writes them into the text as Markdown images. A post's
// text shows the blog's own pictures and no other image, so nobody's
// text plants a tracking pixel.

// MaxPictures bounds the pictures of one post's text.
const MaxPictures = 30

// ErrPicturesFull refuses a picture past MaxPictures.
var ErrPicturesFull = fault.New(http.StatusConflict, "blog.error.pictures_full", "blog: too many pictures", "max", MaxPictures)

// bodies renders posts' text with the blog's pictures.
var bodies = richtext.WithPictures(regexp.MustCompile(`^` + regexp.QuoteMeta(mediaPrefix) + `[0-9A-Z]{26}/[0-9a-f]{32}(_s)?\.jpg$`))

// newPreview is the editor's preview: the text as its post shows it,
// with the blog's pictures.
func newPreview(now func() time.Time) web.Preview {
	p := web.NewPreview(bodyRule, "blog.error.body", now)
	p.Renderer = bodies
	return p
}

// PictureList is the post's pictures' blob names, oldest first.
func (p PostRow) PictureList() []string {
	if p.Pictures == "" {
		return nil
	}
	return strings.Split(p.Pictures, ",")
}

// pictureURLs are the addresses the text may show its pictures at (both
// sizes): its own, and no other.
func (p PostRow) pictureURLs() []string {
	urls := []string{}
	for _, key := range p.PictureList() {
		urls = append(urls, pictures.URL(mediaPrefix, key, false), pictures.URL(mediaPrefix, key, true))
	}
	return urls
}

// AddPicture keeps a picture for the text of p (as its route read it).
// A file that is not a picture, or too big, is the media pipeline's
// refusal, and nothing is written.
func (s *Service) AddPicture(ctx context.Context, p PostRow, data []byte) (PostRow, error) {
	slug := p.RowKey
	if len(p.PictureList()) >= MaxPictures {
		return p, ErrPicturesFull
	}
	img, err := s.pictures.Process(ctx, data)
	if err != nil {
		return p, err
	}
	key, err := s.pictures.Put(ctx, p.ID, img)
	if err != nil {
		return p, err
	}
	p, err = storage.Change(ctx, s.posts, postsPart, slug, ErrNoPost, live(func(p *PostRow) error {
		list := p.PictureList()
		if len(list) >= MaxPictures {
			return ErrPicturesFull
		}
		p.Pictures = strings.Join(append(list, key), ",")
		return nil
	}))
	if err != nil {
		s.pictures.Delete(ctx, key)
	}
	return p, err
}

// DeletePicture removes the picture of slug's text that file names (its
// URL's last part); the text's image of it then shows its alt text.
func (s *Service) DeletePicture(ctx context.Context, slug, file string) (PostRow, error) {
	var gone string
	p, err := storage.Change(ctx, s.posts, postsPart, slug, ErrNoPost, live(func(p *PostRow) error {
		list := p.PictureList()
		i := slices.Index(list, p.ID+"/"+file)
		if i < 0 {
			return ErrNoPost
		}
		gone = list[i]
		p.Pictures = strings.Join(slices.Delete(list, i, i+1), ",")
		return nil
	}))
	if err != nil {
		return p, err
	}
	s.pictures.Delete(ctx, gone)
	return p, nil
}
