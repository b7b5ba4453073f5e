package azure

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

// asciiJSONPolicy sends every JSON request body as pure ASCII, writing each
// non-ASCII character as a \u escape (a surrogate pair beyond the BMP).
// Outside strings JSON is ASCII already, so the document means exactly the
// same to any parser.
//
// Azurite's single-entity handlers decode a request body chunk by chunk
// (Azure/Azurite#2670): a multi-byte character split across two chunks is
// stored as U+FFFD, silently, and values at the 64 KiB limit fail at random.
// An ASCII body has nothing to split. It costs Azure nothing but bytes on the
// wire, up to three times the UTF-8 size for non-Latin text, which keeps even
// a 1 MiB entity within the service's 4 MiB request limit.
type asciiJSONPolicy struct{}

func (asciiJSONPolicy) Do(req *policy.Request) (*http.Response, error) {
	body := req.Body()
	ct := req.Raw().Header.Get("Content-Type")
	if body == nil || !strings.HasPrefix(ct, "application/json") {
		return req.Next()
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("azure: read request body: %w", err)
	}
	if err := req.SetBody(streaming.NopCloser(bytes.NewReader(asciiJSON(data))), ct); err != nil {
		return nil, err
	}
	return req.Next()
}

// asciiJSON escapes every non-ASCII character of a JSON text.
func asciiJSON(data []byte) []byte {
	i := bytes.IndexFunc(data, func(r rune) bool { return r >= utf8.RuneSelf })
	if i < 0 {
		return data
	}
	out := make([]byte, 0, len(data)+len(data)/2)
	out = append(out, data[:i]...)
	for _, r := range string(data[i:]) {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) { // invalid UTF-8 became U+FFFD
			out = fmt.Appendf(out, `\u%04x`, u)
		}
	}
	return out
}
