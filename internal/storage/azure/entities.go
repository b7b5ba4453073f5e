package azure

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/harmony/harmony/internal/storage"
)

// Reads ask for full metadata and are parsed from the raw response body, not
// from aztables' decoded map: that map has lost the difference between 2.0
// and 2, so a whole double would come back as an Int32.
var fullMetadata = to.Ptr(aztables.MetadataFormatFull)

// aztables refuses an empty PartitionKey in the URL of a point operation
// (Azure allows it), so those operations go through a query or a
// one-operation batch instead, both of which we build ourselves.

// Get reads one entity.
func (b *Backend) Get(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	if pk == "" {
		return b.getByQuery(ctx, table, pk, rk)
	}
	var resp *http.Response
	got, err := b.tables.NewClient(table).GetEntity(policy.WithCaptureResponse(ctx, &resp), pk, rk,
		&aztables.GetEntityOptions{Format: fullMetadata})
	if err != nil {
		return storage.Entity{}, mapError(ctx, "get", err)
	}
	body, err := runtime.Payload(resp)
	if err != nil {
		return storage.Entity{}, mapError(ctx, "get", err)
	}
	var raw rawEntity
	if err := json.Unmarshal(body, &raw); err != nil {
		return storage.Entity{}, fmt.Errorf("azure get: decode entity: %w", err)
	}
	e, err := parseEntity(raw)
	if err != nil {
		return storage.Entity{}, err
	}
	if got.ETag != "" {
		e.ETag = string(got.ETag)
	}
	return e, nil
}

func (b *Backend) getByQuery(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	filter, err := pointFilter(pk, rk)
	if err != nil {
		return storage.Entity{}, err
	}
	ents, _, err := b.queryPage(ctx, table, &aztables.ListEntitiesOptions{Filter: &filter, Top: to.Ptr(int32(1))}, "get")
	if err != nil {
		return storage.Entity{}, err
	}
	if len(ents) == 0 {
		return storage.Entity{}, &serviceError{op: "get", kind: storage.ErrNotFound}
	}
	return ents[0], nil
}

// Insert adds an entity; ErrExists when its keys are taken.
func (b *Backend) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	body, err := marshalEntity(e)
	if err != nil {
		return "", err
	}
	resp, err := b.tables.NewClient(table).AddEntity(ctx, body,
		&aztables.AddEntityOptions{Format: to.Ptr(aztables.MetadataFormatNone)})
	if err != nil {
		return "", mapError(ctx, "insert", err)
	}
	return string(resp.ETag), nil
}

// Update changes an existing entity if ifMatch matches its ETag or is "*".
func (b *Backend) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if err := checkIfMatch("update", ifMatch); err != nil {
		return "", err
	}
	if e.PartitionKey == "" {
		return b.single(ctx, table, storage.TxOp{Kind: storage.TxUpdate, Entity: e, Mode: mode, IfMatch: ifMatch})
	}
	body, err := marshalEntity(e)
	if err != nil {
		return "", err
	}
	etag := azcore.ETag(ifMatch)
	resp, err := b.tables.NewClient(table).UpdateEntity(ctx, body,
		&aztables.UpdateEntityOptions{IfMatch: &etag, UpdateMode: sdkMode(mode)})
	if err != nil {
		return "", withIfMatch(mapError(ctx, "update", err), ifMatch)
	}
	return string(resp.ETag), nil
}

// Upsert inserts or updates unconditionally.
func (b *Backend) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if e.PartitionKey == "" {
		return b.single(ctx, table, storage.TxOp{Kind: storage.TxUpsert, Entity: e, Mode: mode})
	}
	body, err := marshalEntity(e)
	if err != nil {
		return "", err
	}
	resp, err := b.tables.NewClient(table).UpsertEntity(ctx, body,
		&aztables.UpsertEntityOptions{UpdateMode: sdkMode(mode)})
	if err != nil {
		return "", mapError(ctx, "upsert", err)
	}
	return string(resp.ETag), nil
}

func sdkMode(m storage.UpdateMode) aztables.UpdateMode {
	if m == storage.Replace {
		return aztables.UpdateModeReplace
	}
	return aztables.UpdateModeMerge
}

// Delete removes an entity if ifMatch matches its ETag or is "*".
func (b *Backend) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if err := checkIfMatch("delete", ifMatch); err != nil {
		return err
	}
	if pk == "" {
		_, err := b.single(ctx, table, storage.TxOp{Kind: storage.TxDelete,
			Entity: storage.Entity{PartitionKey: pk, RowKey: rk}, IfMatch: ifMatch})
		return err
	}
	etag := azcore.ETag(ifMatch)
	_, err := b.tables.NewClient(table).DeleteEntity(ctx, pk, rk, &aztables.DeleteEntityOptions{IfMatch: &etag})
	return withIfMatch(mapError(ctx, "delete", err), ifMatch)
}

// Query fetches one page: one request to the service. The service may return
// fewer entities than asked, even none, with a continuation; that is passed
// through as is.
func (b *Backend) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	filter, err := renderFilter(q)
	if err != nil {
		return storage.Page{}, err
	}
	sel, err := renderSelect(q.Select)
	if err != nil {
		return storage.Page{}, err
	}
	limit := q.Limit
	if limit <= 0 || limit > storage.MaxPageSize {
		limit = storage.MaxPageSize
	}
	opts := &aztables.ListEntitiesOptions{Top: to.Ptr(int32(limit))}
	if filter != "" {
		opts.Filter = &filter
	}
	if sel != "" {
		opts.Select = &sel
	}
	if c := q.Continuation; c != nil {
		opts.NextPartitionKey = &c.NextPartitionKey
		if c.NextRowKey != "" {
			opts.NextRowKey = &c.NextRowKey
		}
	}
	ents, next, err := b.queryPage(ctx, table, opts, "query")
	if err != nil {
		return storage.Page{}, err
	}
	return storage.Page{Entities: ents, Next: next}, nil
}

// queryPage runs one Query Entities request and parses its raw body.
func (b *Backend) queryPage(ctx context.Context, table string, opts *aztables.ListEntitiesOptions, op string) ([]storage.Entity, *storage.Continuation, error) {
	opts.Format = fullMetadata
	var resp *http.Response
	page, err := b.tables.NewClient(table).NewListEntitiesPager(opts).NextPage(policy.WithCaptureResponse(ctx, &resp))
	if err != nil {
		return nil, nil, mapError(ctx, op, err)
	}
	body, err := runtime.Payload(resp)
	if err != nil {
		return nil, nil, mapError(ctx, op, err)
	}
	var doc struct {
		Value []rawEntity `json:"value"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, nil, fmt.Errorf("azure %s: decode page: %w", op, err)
	}
	ents := make([]storage.Entity, 0, len(doc.Value))
	for _, raw := range doc.Value {
		e, err := parseEntity(raw)
		if err != nil {
			return nil, nil, err
		}
		ents = append(ents, e)
	}
	var next *storage.Continuation
	npk, nrk := deref(page.NextPartitionKey), deref(page.NextRowKey)
	if npk != "" || nrk != "" {
		next = &storage.Continuation{NextPartitionKey: npk, NextRowKey: nrk}
	}
	return ents, next, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
