package azure

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/harmony/harmony/internal/storage"
)

// CreateContainer creates a blob container; one that exists already is fine.
func (b *Backend) CreateContainer(ctx context.Context, container string) error {
	_, err := b.blobs.CreateContainer(ctx, container, nil)
	if bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		return nil
	}
	return mapError(ctx, "create container "+container, err)
}

// PutBlob creates or overwrites a block blob in one request and returns its
// ETag. A condition (ifMatch) goes as If-Match, or If-None-Match: * for a
// blob that must not exist.
func (b *Backend) PutBlob(ctx context.Context, container, name string, data []byte, contentType, ifMatch string) (string, error) {
	if err := checkIfMatch("put blob", ifMatch); err != nil {
		return "", err
	}
	bb := b.blobs.ServiceClient().NewContainerClient(container).NewBlockBlobClient(name)
	opts := &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentType: &contentType}}
	switch ifMatch {
	case storage.AnyETag:
	case "":
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}
	default:
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(ifMatch))}}
	}
	resp, err := bb.Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), opts)
	if err != nil {
		mapped := mapError(ctx, "put blob", err)
		if ifMatch != storage.AnyETag && ifMatch != "" && errors.Is(mapped, storage.ErrNotFound) && !bloberror.HasCode(err, bloberror.ContainerNotFound) {
			// The blob it was to replace is gone: the condition failed
			// (and the answer is no "not found").
			return "", &serviceError{op: "put blob", kind: storage.ErrPrecondition, msg: "the blob is gone", cause: err}
		}
		return "", mapped
	}
	return blobETag(resp.ETag), nil
}

// GetBlob reads a blob with its metadata.
func (b *Backend) GetBlob(ctx context.Context, container, name string) (storage.Blob, error) {
	resp, err := b.blobs.DownloadStream(ctx, container, name, nil)
	if err != nil {
		return storage.Blob{}, mapError(ctx, "get blob", err)
	}
	// The retry reader resumes a body cut off mid-way.
	body := resp.NewRetryReader(ctx, &blob.RetryReaderOptions{MaxRetries: maxRetries})
	defer body.Close()
	data, err := io.ReadAll(body)
	if err != nil {
		return storage.Blob{}, mapError(ctx, "get blob", err)
	}
	return storage.Blob{
		Name:         name,
		Data:         data,
		ContentType:  deref(resp.ContentType),
		ETag:         blobETag(resp.ETag),
		LastModified: utc(resp.LastModified),
		Size:         int64(len(data)),
	}, nil
}

// DeleteBlob removes a blob; ErrNotFound when it is missing.
func (b *Backend) DeleteBlob(ctx context.Context, container, name string) error {
	_, err := b.blobs.DeleteBlob(ctx, container, name, nil)
	return mapError(ctx, "delete blob", err)
}

// ListBlobs lists every blob whose name starts with prefix, reading all
// pages, sorted by name.
func (b *Backend) ListBlobs(ctx context.Context, container, prefix string) ([]storage.BlobInfo, error) {
	opts := &azblob.ListBlobsFlatOptions{}
	if prefix != "" {
		opts.Prefix = &prefix
	}
	var out []storage.BlobInfo
	pager := b.blobs.NewListBlobsFlatPager(container, opts)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, mapError(ctx, "list blobs", err)
		}
		for _, it := range page.Segment.BlobItems {
			if it == nil || it.Name == nil {
				continue
			}
			info := storage.BlobInfo{Name: *it.Name}
			if p := it.Properties; p != nil {
				info.ContentType = deref(p.ContentType)
				info.ETag = blobETag(p.ETag)
				info.LastModified = utc(p.LastModified)
				if p.ContentLength != nil {
					info.Size = *p.ContentLength
				}
			}
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(x, y storage.BlobInfo) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// blobETag gives an ETag in its HTTP header form, quoted: listings carry it
// bare, while uploads and downloads carry it quoted.
func blobETag(e *azcore.ETag) string {
	if e == nil || *e == "" {
		return ""
	}
	s := string(*e)
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "W/") {
		return s
	}
	return `"` + s + `"`
}

func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
