package azure

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/harmony/harmony/internal/storage"
)

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

func TestParseConnectionString(t *testing.T) {
	cases := []struct {
		name, conn           string
		table, blob, account string
		sas                  string
		wantErr              string
	}{
		{name: "azurite", conn: "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + devKey +
			";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;TableEndpoint=http://127.0.0.1:10002/devstoreaccount1/;",
			table: "http://127.0.0.1:10002/devstoreaccount1", blob: "http://127.0.0.1:10000/devstoreaccount1", account: "devstoreaccount1"},
		{name: "real account", conn: "DefaultEndpointsProtocol=https;AccountName=harmony;AccountKey=" + devKey + ";EndpointSuffix=core.windows.net",
			table: "https://harmony.table.core.windows.net", blob: "https://harmony.blob.core.windows.net", account: "harmony"},
		{name: "sovereign cloud", conn: "AccountName=harmony;AccountKey=" + devKey + ";EndpointSuffix=core.chinacloudapi.cn",
			table: "https://harmony.table.core.chinacloudapi.cn", blob: "https://harmony.blob.core.chinacloudapi.cn", account: "harmony"},
		{name: "shared access signature", conn: "BlobEndpoint=https://h.blob.core.windows.net/;TableEndpoint=https://h.table.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=bt&sig=abc%3D",
			table: "https://h.table.core.windows.net", blob: "https://h.blob.core.windows.net", sas: "sv=2022-11-02&ss=bt&sig=abc%3D"},
		{name: "cosmos has no blobs", conn: "DefaultEndpointsProtocol=https;AccountName=hc;AccountKey=" + devKey + ";TableEndpoint=https://hc.table.cosmos.azure.com:443/;",
			table: "https://hc.table.cosmos.azure.com:443", blob: "", account: "hc"},
		{name: "development storage", conn: "UseDevelopmentStorage=true", wantErr: "UseDevelopmentStorage=true is not supported"},
		{name: "no credential", conn: "AccountName=x;EndpointSuffix=core.windows.net", wantErr: "AccountKey or SharedAccessSignature"},
		{name: "not key=value", conn: "garbage", wantErr: "without '='"},
		{name: "relative endpoint", conn: "AccountName=x;AccountKey=" + devKey + ";TableEndpoint=localhost", wantErr: "not an absolute URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := parseConnectionString(c.conn)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.tableURL != c.table || a.blobURL != c.blob || a.name != c.account || a.sas != c.sas {
				t.Errorf("got table %q blob %q name %q sas %q", a.tableURL, a.blobURL, a.name, a.sas)
			}
		})
	}
}

func TestOpenRejects(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "UseDevelopmentStorage=true"); err == nil || !strings.Contains(err.Error(), "Azurite's full connection string") {
		t.Errorf("Open(UseDevelopmentStorage) err = %v", err)
	}
	cosmos := "AccountName=hc;AccountKey=" + devKey + ";TableEndpoint=https://hc.table.cosmos.azure.com:443/"
	if _, err := Open(ctx, cosmos); err == nil || !strings.Contains(err.Error(), "OpenSplit") {
		t.Errorf("Open(cosmos) err = %v, want a pointer to OpenSplit", err)
	}
	b, err := OpenSplit(ctx, cosmos, "AccountName=hb;AccountKey="+devKey)
	if err != nil {
		t.Fatal(err)
	}
	if !b.cosmos {
		t.Error("a Cosmos table endpoint was not recognised")
	}
}

// fakeService opens a backend on an httptest server that answers with
// handle, with retries quick enough for a unit test.
func fakeService(t *testing.T, handle http.HandlerFunc) *Backend {
	t.Helper()
	srv := httptest.NewServer(handle)
	t.Cleanup(srv.Close)
	conn := "AccountName=devstoreaccount1;AccountKey=" + devKey +
		";TableEndpoint=" + srv.URL + "/devstoreaccount1;BlobEndpoint=" + srv.URL + "/devstoreaccount1"
	b, err := openWith(conn, conn, policy.RetryOptions{MaxRetries: maxRetries, RetryDelay: time.Millisecond, MaxRetryDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRetriesThenTransient(t *testing.T) {
	var calls atomic.Int32
	b := fakeService(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("x-ms-error-code", "ServerBusy")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	_, err := b.Get(t.Context(), "tbl", "p", "r")
	if !errors.Is(err, storage.ErrTransient) {
		t.Fatalf("err = %v, want ErrTransient", err)
	}
	if got := calls.Load(); got != maxRetries+1 {
		t.Errorf("service saw %d tries, want %d", got, maxRetries+1)
	}

	calls.Store(0)
	err = b.Transact(t.Context(), "tbl", []storage.TxOp{{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "r"}}})
	if !errors.Is(err, storage.ErrTransient) || calls.Load() != maxRetries+1 {
		t.Errorf("transaction: err = %v after %d tries, want ErrTransient after %d", err, calls.Load(), maxRetries+1)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	var calls atomic.Int32
	b := fakeService(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json;odata=fullmetadata")
		w.Header().Set("ETag", `W/"1"`)
		_, _ = w.Write([]byte(`{"PartitionKey":"p","RowKey":"r","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-01-01T00:00:00Z","N":2.0}`))
	})
	e, err := b.Get(t.Context(), "tbl", "p", "r")
	if err != nil {
		t.Fatal(err)
	}
	if e.ETag != `W/"1"` || e.Props["N"] != 2.0 || calls.Load() != 2 {
		t.Errorf("got %+v after %d calls", e, calls.Load())
	}
}

func TestUnreachableIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	conn := "AccountName=devstoreaccount1;AccountKey=" + devKey + ";TableEndpoint=http://" + addr + "/a;BlobEndpoint=http://" + addr + "/a"
	b, err := openWith(conn, conn, policy.RetryOptions{MaxRetries: 1, RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(t.Context(), "tbl", "p", "r"); !errors.Is(err, storage.ErrTransient) {
		t.Errorf("Get err = %v, want ErrTransient", err)
	}
	if _, err := b.GetBlob(t.Context(), "c", "b"); !errors.Is(err, storage.ErrTransient) {
		t.Errorf("GetBlob err = %v, want ErrTransient", err)
	}
}

func TestCancelledContext(t *testing.T) {
	b := fakeService(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := b.Get(ctx, "tbl", "p", "r")
	if !errors.Is(err, context.Canceled) || errors.Is(err, storage.ErrTransient) {
		t.Errorf("Get err = %v, want context.Canceled and not ErrTransient", err)
	}
	err = b.Transact(ctx, "tbl", []storage.TxOp{{Kind: storage.TxDelete, IfMatch: "*", Entity: storage.Entity{PartitionKey: "p", RowKey: "r"}}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Transact err = %v, want context.Canceled", err)
	}
}
