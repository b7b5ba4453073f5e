package azure

import (
	"errors"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// batchResponse builds a 202 batch response body around inner HTTP responses,
// the way Azure frames them (CRLF, one changeset).
func batchResponse(inner ...string) (contentType, body string) {
	const batch, cs = "batchresponse_7ab1c103", "changesetresponse_1d2c3f6f"
	var b strings.Builder
	b.WriteString("--" + batch + "\r\nContent-Type: multipart/mixed; boundary=" + cs + "\r\n\r\n")
	for _, r := range inner {
		b.WriteString("--" + cs + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		b.WriteString(strings.ReplaceAll(r, "\n", "\r\n"))
		b.WriteString("\r\n")
	}
	b.WriteString("--" + cs + "--\r\n--" + batch + "--\r\n")
	return "multipart/mixed; boundary=" + batch, b.String()
}

func failure(status, headers, code, message string) string {
	return "HTTP/1.1 " + status + "\n" + headers +
		"DataServiceVersion: 3.0;\nContent-Type: application/json;odata=minimalmetadata;streaming=true;charset=utf-8\n\n" +
		`{"odata.error":{"code":"` + code + `","message":{"lang":"en-US","value":"` + message + `\nRequestId:1b2c\nTime:2024-01-01T00:00:00.0000000Z"}}}`
}

func TestParseBatchResponse(t *testing.T) {
	ops := []storage.TxOp{
		{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "a"}},
		{Kind: storage.TxUpdate, Entity: storage.Entity{PartitionKey: "p", RowKey: "b"}, IfMatch: "*"},
		{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: "p", RowKey: "c"}, IfMatch: "*"},
	}
	cases := []struct {
		name      string
		inner     []string
		want      error
		wantInMsg string
	}{
		{"index in the message", []string{failure("409 Conflict", "Content-ID: 2\n", "EntityAlreadyExists", "0:The specified entity already exists.")},
			storage.ErrExists, `operation 0 (insert "p"/"a")`},
		{"precondition", []string{failure("412 Precondition Failed", "", "UpdateConditionNotSatisfied", "1:The update condition specified in the request was not satisfied.")},
			storage.ErrPrecondition, `operation 1 (update "p"/"b")`},
		{"index from Content-ID", []string{failure("404 Not Found", "Content-ID: 3\n", "ResourceNotFound", "The specified resource does not exist.")},
			storage.ErrNotFound, `operation 2 (delete "p"/"c")`},
		{"mixed partitions", []string{failure("400 Bad Request", "", "CommandsInBatchActedOnDifferentPartitions", "1:All commands in a batch must operate on same entity group.")},
			storage.ErrInvalidTransaction, "operation 1"},
		{"too large", []string{failure("413 Request Entity Too Large", "", "EntityTooLarge", "0:The entity is larger than the maximum allowed size (1MB).")},
			storage.ErrTooLarge, "operation 0"},
		{"busy", []string{failure("503 Server Unavailable", "", "ServerBusy", "0:The server is busy.")},
			storage.ErrTransient, "operation 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct, body := batchResponse(c.inner...)
			_, err := parseBatchResponse(ct, []byte(body), ops)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.wantInMsg) {
				t.Errorf("err = %q, want it to name %s", err, c.wantInMsg)
			}
		})
	}
}

func TestParseBatchResponseSuccess(t *testing.T) {
	ops := []storage.TxOp{
		{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "a"}},
		{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: "p", RowKey: "b"}, IfMatch: "*"},
	}
	ct, body := batchResponse(
		"HTTP/1.1 204 No Content\nDataServiceVersion: 3.0;\nETag: W/\"datetime'2024-01-01T00%3A00%3A00.1Z'\"\n\n",
		"HTTP/1.1 204 No Content\nDataServiceVersion: 3.0;\n\n",
	)
	etags, err := parseBatchResponse(ct, []byte(body), ops)
	if err != nil {
		t.Fatal(err)
	}
	if want := `W/"datetime'2024-01-01T00%3A00%3A00.1Z'"`; len(etags) != 2 || etags[0] != want || etags[1] != "" {
		t.Errorf("etags = %q, want [%s, \"\"]", etags, want)
	}

	// A response that lost an operation is not a success.
	ct, body = batchResponse("HTTP/1.1 204 No Content\n\n")
	if _, err := parseBatchResponse(ct, []byte(body), ops); err == nil {
		t.Error("one response for two operations was accepted")
	}
}

func TestBuildBatch(t *testing.T) {
	b := &Backend{tableURL: "https://acct.table.core.windows.net"}
	ops := []storage.TxOp{
		{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "O'Brien", RowKey: "a,b", Props: map[string]any{"N": int32(1)}}},
		{Kind: storage.TxUpdate, Mode: storage.Merge, IfMatch: `W/"x"`, Entity: storage.Entity{PartitionKey: "O'Brien", RowKey: "c"}},
		{Kind: storage.TxUpsert, Mode: storage.Replace, Entity: storage.Entity{PartitionKey: "O'Brien", RowKey: ""}},
		{Kind: storage.TxDelete, IfMatch: "*", Entity: storage.Entity{PartitionKey: "O'Brien", RowKey: "d"}},
	}
	bb, err := b.buildBatch("tbl", ops)
	if err != nil {
		t.Fatal(err)
	}
	body := string(bb.body)
	for _, want := range []string{
		"POST https://acct.table.core.windows.net/tbl HTTP/1.1\r\n",
		`{"PartitionKey":"O'Brien","RowKey":"a,b","N":1}`,
		"PATCH https://acct.table.core.windows.net/tbl(PartitionKey='O%27%27Brien',RowKey='c') HTTP/1.1\r\n",
		"If-Match: W/\"x\"\r\n",
		"PUT https://acct.table.core.windows.net/tbl(PartitionKey='O%27%27Brien',RowKey='') HTTP/1.1\r\n",
		"DELETE https://acct.table.core.windows.net/tbl(PartitionKey='O%27%27Brien',RowKey='d') HTTP/1.1\r\n",
		"If-Match: *\r\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("batch body lacks %q", want)
		}
	}
	if !strings.HasPrefix(bb.contentType, "multipart/mixed; boundary=batch_") {
		t.Errorf("content type %q", bb.contentType)
	}

	// Cosmos DB gets a merge as POST with the MERGE verb, as aztables sends it.
	b.cosmos = true
	bb, err = b.buildBatch("tbl", ops[1:2])
	if err != nil {
		t.Fatal(err)
	}
	if body := string(bb.body); !strings.Contains(body, "POST https://acct.table.core.windows.net/tbl(PartitionKey=") ||
		!strings.Contains(body, "X-HTTP-Method: MERGE\r\n") {
		t.Errorf("cosmos merge body:\n%s", body)
	}
}

func TestKindOf(t *testing.T) {
	cases := []struct {
		status int
		code   string
		msg    string
		want   error
	}{
		{404, "ResourceNotFound", "", storage.ErrNotFound},
		{404, "TableNotFound", "", storage.ErrNotFound},
		{404, "BlobNotFound", "", storage.ErrNotFound},
		{409, "EntityAlreadyExists", "", storage.ErrExists},
		{412, "UpdateConditionNotSatisfied", "", storage.ErrPrecondition},
		{413, "RequestBodyTooLarge", "", storage.ErrTooLarge},
		{400, "EntityTooLarge", "", storage.ErrTooLarge},
		{400, "PropertyValueTooLarge", "", storage.ErrTooLarge},
		{400, "OutOfRangeInput", "The 'RowKey' parameter of value is out of range.", storage.ErrInvalidKey},
		{400, "InvalidInput", "One of the request inputs is not valid.", storage.ErrInvalid},
		{400, "InvalidDuplicateRow", "", storage.ErrInvalidTransaction},
		{409, "TableBeingDeleted", "", storage.ErrTransient},
		{429, "", "", storage.ErrTransient},
		{503, "ServerBusy", "", storage.ErrTransient},
		{500, "", "", storage.ErrTransient},
		{404, "", "", storage.ErrNotFound},
		{413, "", "", storage.ErrTooLarge},
	}
	for _, c := range cases {
		if got := kindOf(c.status, c.code, c.msg); !errors.Is(got, c.want) {
			t.Errorf("kindOf(%d, %q) = %v, want %v", c.status, c.code, got, c.want)
		}
	}
}
