package azure

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/harmony/harmony/internal/storage"
)

// Entity group transactions, also used for point writes with an empty
// PartitionKey (see entities.go).
//
// aztables v1.4.1's SubmitTransaction writes each operation's URL from the raw
// keys: a ' in a key is not doubled (the fix for Azure/azure-sdk-for-go#21048
// covered single-entity calls only), so Azure rejects the batch, and an empty
// PartitionKey is refused outright. So we write the multipart body ourselves
// and let SubmitTransaction send it: batchBodyPolicy, installed on the table
// client, swaps our body in, and the SDK's pipeline still signs, retries and
// logs the request. We then parse the raw response ourselves, because the SDK
// reports a failed batch (HTTP 202 with the real status inside) without saying
// which operation failed or why.

type batchBodyKey struct{}

type batchBody struct {
	body        []byte
	contentType string
}

// batchBodyPolicy puts the body carried in the request context on a $batch
// request. It runs once per call, before the retry and signing policies.
type batchBodyPolicy struct{}

func (batchBodyPolicy) Do(req *policy.Request) (*http.Response, error) {
	bb, ok := req.Raw().Context().Value(batchBodyKey{}).(*batchBody)
	if ok && strings.HasSuffix(req.Raw().URL.Path, "/$batch") {
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(bb.body)), bb.contentType); err != nil {
			return nil, err
		}
	}
	return req.Next()
}

// placeholderTx is what SubmitTransaction builds its own body from, which the
// policy then replaces. Should it ever be sent, it is a delete conditional on
// an ETag no entity has: it cannot change anything.
var placeholderTx = []aztables.TransactionAction{{
	ActionType: aztables.TransactionTypeDelete,
	Entity:     []byte(`{"PartitionKey":"harmony-placeholder","RowKey":"harmony-placeholder"}`),
	IfMatch:    to.Ptr(azcore.ETag(`W/"datetime'1601-01-01T00%3A00%3A00.0000000Z'"`)),
}}

// Transact applies ops atomically in one entity group transaction.
func (b *Backend) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	_, err := b.submit(ctx, table, ops, false)
	return err
}

// single runs one write as a one-operation batch and returns its new ETag.
func (b *Backend) single(ctx context.Context, table string, op storage.TxOp) (string, error) {
	etags, err := b.submit(ctx, table, []storage.TxOp{op}, true)
	if err != nil {
		return "", err
	}
	if etags[0] == "" && op.Kind != storage.TxDelete {
		return "", fmt.Errorf("azure %s: the service returned no ETag", txKindName(op.Kind))
	}
	return etags[0], nil
}

// submit sends ops as one batch and returns each operation's new ETag (empty
// for deletes). single says errors should name the operation, not a
// transaction.
func (b *Backend) submit(ctx context.Context, table string, ops []storage.TxOp, single bool) ([]string, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("%w: empty transaction", storage.ErrInvalidTransaction)
	}
	name := "transaction"
	if single {
		name = txKindName(ops[0].Kind)
	}
	for i, op := range ops {
		if err := checkIfMatch(fmt.Sprintf("%s operation %d", name, i), op.IfMatch); err != nil {
			return nil, err
		}
	}
	bb, err := b.buildBatch(table, ops)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	sctx := policy.WithCaptureResponse(context.WithValue(ctx, batchBodyKey{}, bb), &resp)
	_, err = b.tables.NewClient(table).SubmitTransaction(sctx, placeholderTx, nil)
	if ctx.Err() != nil || resp == nil || resp.StatusCode != http.StatusAccepted {
		if err == nil {
			err = errors.New("no batch response")
		}
		return nil, mapError(ctx, name, err)
	}
	body, rerr := runtime.Payload(resp)
	if rerr != nil {
		return nil, mapError(ctx, name, rerr)
	}
	etags, err := parseBatchResponse(resp.Header.Get("Content-Type"), body, ops)
	var se *serviceError
	if single && errors.As(err, &se) {
		se.op = name
	}
	return etags, err
}

// buildBatch writes ops as a multipart/mixed batch holding one changeset.
func (b *Backend) buildBatch(table string, ops []storage.TxOp) (*batchBody, error) {
	batchID, changesetID := "batch_"+newID(), "changeset_"+newID()

	var cs bytes.Buffer
	csw := multipart.NewWriter(&cs)
	if err := csw.SetBoundary(changesetID); err != nil {
		return nil, err
	}
	for _, op := range ops {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", "application/http")
		h.Set("Content-Transfer-Encoding", "binary")
		w, err := csw.CreatePart(h)
		if err != nil {
			return nil, err
		}
		if err := b.writeOp(w, table, op); err != nil {
			return nil, err
		}
	}
	if err := csw.Close(); err != nil {
		return nil, err
	}

	var body bytes.Buffer
	bw := multipart.NewWriter(&body)
	if err := bw.SetBoundary(batchID); err != nil {
		return nil, err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", "multipart/mixed; boundary="+changesetID)
	w, err := bw.CreatePart(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(cs.Bytes()); err != nil {
		return nil, err
	}
	if err := bw.Close(); err != nil {
		return nil, err
	}
	return &batchBody{body: body.Bytes(), contentType: "multipart/mixed; boundary=" + batchID}, nil
}

// writeOp writes one operation as an HTTP request inside the changeset.
func (b *Backend) writeOp(w io.Writer, table string, op storage.TxOp) error {
	e := op.Entity
	target := b.tableURL + "/" + entityPath(table, e.PartitionKey, e.RowKey)
	var method, ifMatch string
	merge := false
	switch op.Kind {
	case storage.TxInsert:
		method, target = http.MethodPost, b.tableURL+"/"+url.PathEscape(table)
	case storage.TxUpdate:
		method, ifMatch, merge = http.MethodPut, op.IfMatch, op.Mode == storage.Merge
	case storage.TxUpsert:
		method, merge = http.MethodPut, op.Mode == storage.Merge
	case storage.TxDelete:
		method, ifMatch = http.MethodDelete, op.IfMatch
	default:
		return fmt.Errorf("%w: unknown operation kind %d", storage.ErrInvalidTransaction, op.Kind)
	}
	// Headers keep the casing Azure's documentation uses; some batch parsers
	// are less forgiving than HTTP allows.
	headers := [][2]string{{"Accept", "application/json;odata=minimalmetadata"}, {"DataServiceVersion", "3.0"}}
	if merge {
		// What aztables sends for a merge: PATCH, or for Cosmos DB a POST
		// carrying the MERGE verb.
		method = http.MethodPatch
		if b.cosmos {
			method = http.MethodPost
			headers = append(headers, [2]string{"X-HTTP-Method", "MERGE"})
		}
	}
	if ifMatch != "" {
		headers = append(headers, [2]string{"If-Match", ifMatch})
	}
	var body []byte
	if op.Kind != storage.TxDelete {
		var err error
		if body, err = marshalEntity(e); err != nil {
			return err
		}
		headers = append(headers, [2]string{"Content-Type", "application/json"}, [2]string{"Content-Length", strconv.Itoa(len(body))})
		if op.Kind == storage.TxInsert {
			headers = append(headers, [2]string{"Prefer", "return-no-content"})
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s %s HTTP/1.1\r\n", method, target)
	for _, h := range headers {
		fmt.Fprintf(&buf, "%s: %s\r\n", h[0], h[1])
	}
	buf.WriteString("\r\n")
	buf.Write(body)
	_, err := w.Write(buf.Bytes())
	return err
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// parseBatchResponse reads a 202 batch response. When an operation failed,
// the service answers with that operation's status and error only, its
// message prefixed with the operation's index ("1:The specified entity
// already exists."), and nothing was applied.
func parseBatchResponse(contentType string, body []byte, ops []storage.TxOp) ([]string, error) {
	responses, err := readBatchParts(contentType, body)
	if err != nil {
		return nil, fmt.Errorf("azure transaction: read response: %w", err)
	}
	etags := make([]string, len(ops))
	for i, r := range responses {
		if r.status >= 400 {
			return nil, batchOpError(r, i, ops)
		}
		if i < len(etags) {
			etags[i] = r.header.Get("ETag")
		}
	}
	if len(responses) != len(ops) {
		return nil, fmt.Errorf("azure transaction: %d responses for %d operations", len(responses), len(ops))
	}
	return etags, nil
}

type batchPart struct {
	status int
	header http.Header
	body   []byte
}

// readBatchParts returns the HTTP responses inside a batch response, in
// order, whether or not they sit in a changeset.
func readBatchParts(contentType string, body []byte) ([]batchPart, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return nil, fmt.Errorf("content type %q is not multipart", contentType)
	}
	var out []batchPart
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		data, err := io.ReadAll(p)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) { // Cosmos DB ends parts loosely
			return out, err
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "multipart/") {
			inner, err := readBatchParts(p.Header.Get("Content-Type"), data)
			out = append(out, inner...)
			if err != nil {
				return out, err
			}
			continue
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
		if err != nil {
			return out, err
		}
		rb, _ := io.ReadAll(resp.Body) // a short body still names the error
		resp.Body.Close()
		out = append(out, batchPart{status: resp.StatusCode, header: resp.Header, body: rb})
	}
}

// batchOpError maps a failed operation's response to a typed error naming the
// operation. pos is the response's position, the fallback for its index.
func batchOpError(r batchPart, pos int, ops []storage.TxOp) error {
	code, msg := r.header.Get("x-ms-error-code"), ""
	var oe odataError
	if json.Unmarshal(r.body, &oe) == nil {
		if oe.Error.Code != "" {
			code = oe.Error.Code
		}
		msg, _, _ = strings.Cut(oe.Error.Message.Value, "\n")
	}
	idx := -1
	if n, rest, ok := strings.Cut(msg, ":"); ok {
		if i, err := strconv.Atoi(n); err == nil {
			idx, msg = i, rest
		}
	}
	if idx < 0 {
		if i, err := strconv.Atoi(r.header.Get("Content-ID")); err == nil {
			idx = i - 1 // Content-IDs count from 1
		}
	}
	if idx < 0 || idx >= len(ops) {
		idx = min(pos, len(ops)-1)
	}
	e := ops[idx].Entity
	op := fmt.Sprintf("transaction operation %d (%s %q/%q)", idx, txKindName(ops[idx].Kind), e.PartitionKey, e.RowKey)
	err := &serviceError{op: op, kind: kindOf(r.status, code, msg), status: r.status, code: code, msg: msg}
	return withIfMatch(err, ops[idx].IfMatch)
}

func txKindName(k storage.TxKind) string {
	switch k {
	case storage.TxInsert:
		return "insert"
	case storage.TxUpdate:
		return "update"
	case storage.TxUpsert:
		return "upsert"
	case storage.TxDelete:
		return "delete"
	}
	return "unknown"
}
