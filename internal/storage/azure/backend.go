// Package azure is the storage.Backend on Azure Table Storage and Blob
// Storage (a real account, Cosmos DB for Table, or Azurite), built on aztables
// and azblob. It owns the EDM JSON marshalling, the only OData filter
// renderer in Harmony, and the mapping of service errors to storage's typed
// errors.
package azure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/harmony/harmony/internal/storage"
)

// Backend implements storage.Backend on Azure. It is safe for concurrent use.
type Backend struct {
	tables   *aztables.ServiceClient
	tableURL string // for the request lines inside a batch
	cosmos   bool

	blobs *azblob.Client
}

var _ storage.Backend = (*Backend)(nil)

// Retry settings for both clients. azcore backs off exponentially with ±20%
// jitter: about 0.2, 0.6, 1.4 and 3 s, then gives up and the error maps to
// storage.ErrTransient. Retried statuses are azcore's defaults: 408, 429,
// 500, 502, 503, 504, plus connection errors and per-try timeouts.
const maxRetries = 4

var defaultRetry = policy.RetryOptions{
	MaxRetries:    maxRetries,
	RetryDelay:    200 * time.Millisecond,
	MaxRetryDelay: 5 * time.Second,
}

const (
	tableTryTimeout = 20 * time.Second
	blobTryTimeout  = 2 * time.Minute // blobs may be large
)

func clientOptions(retry policy.RetryOptions, tryTimeout time.Duration) azcore.ClientOptions {
	retry.TryTimeout = tryTimeout
	return azcore.ClientOptions{
		Retry:     retry,
		Telemetry: policy.TelemetryOptions{ApplicationID: "harmony"},
	}
}

// Open connects to the table and blob services named by one connection
// string: TableEndpoint= and BlobEndpoint= (Azurite, custom domains), or
// AccountName, AccountKey and EndpointSuffix for a real account. Open makes
// no network call; ctx is for symmetry with other backends.
//
// The Azure SDK for Go rejects UseDevelopmentStorage=true, and so does Open.
// A Cosmos DB for Table connection string has no blob service: use
// OpenSplit with a storage account for blobs.
func Open(ctx context.Context, connectionString string) (*Backend, error) {
	return OpenSplit(ctx, connectionString, connectionString)
}

// OpenSplit takes tables from one connection string and blobs from another,
// for Cosmos DB for Table, which has no blob service.
func OpenSplit(ctx context.Context, tablesConnectionString, blobsConnectionString string) (*Backend, error) {
	return openWith(tablesConnectionString, blobsConnectionString, defaultRetry)
}

func openWith(tablesConnectionString, blobsConnectionString string, retry policy.RetryOptions) (*Backend, error) {
	ta, err := parseConnectionString(tablesConnectionString)
	if err != nil {
		return nil, err
	}
	ba := ta
	if blobsConnectionString != tablesConnectionString {
		if ba, err = parseConnectionString(blobsConnectionString); err != nil {
			return nil, err
		}
	}
	if ba.blobURL == "" {
		return nil, errors.New("azure: the connection string has no blob service (Cosmos DB for Table has none): " +
			"add BlobEndpoint= or use OpenSplit with a storage account for blobs")
	}

	b := &Backend{tableURL: ta.tableURL, cosmos: isCosmos(ta.tableURL)}
	topts := &aztables.ClientOptions{ClientOptions: clientOptions(retry, tableTryTimeout)}
	// Transact builds its own changeset (batch.go); single-entity writes go
	// out as ASCII for Azurite's sake (asciibody.go).
	topts.PerCallPolicies = append(topts.PerCallPolicies, batchBodyPolicy{}, asciiJSONPolicy{})
	if ta.key != "" {
		cred, err := aztables.NewSharedKeyCredential(ta.name, ta.key)
		if err != nil {
			return nil, fmt.Errorf("azure: table credential: %w", err)
		}
		b.tables, err = aztables.NewServiceClientWithSharedKey(ta.tableURL, cred, topts)
		if err != nil {
			return nil, fmt.Errorf("azure: table client: %w", err)
		}
	} else {
		b.tables, err = aztables.NewServiceClientWithNoCredential(ta.tableURL+"/?"+ta.sas, topts)
		if err != nil {
			return nil, fmt.Errorf("azure: table client: %w", err)
		}
	}

	bopts := &azblob.ClientOptions{ClientOptions: clientOptions(retry, blobTryTimeout)}
	if ba.key != "" {
		cred, err := azblob.NewSharedKeyCredential(ba.name, ba.key)
		if err != nil {
			return nil, fmt.Errorf("azure: blob credential: %w", err)
		}
		b.blobs, err = azblob.NewClientWithSharedKeyCredential(ba.blobURL+"/", cred, bopts)
		if err != nil {
			return nil, fmt.Errorf("azure: blob client: %w", err)
		}
	} else {
		b.blobs, err = azblob.NewClientWithNoCredential(ba.blobURL+"/?"+ba.sas, bopts)
		if err != nil {
			return nil, fmt.Errorf("azure: blob client: %w", err)
		}
	}
	return b, nil
}

// Name is "azure".
func (b *Backend) Name() string { return "azure" }

// Close releases nothing: the SDK clients hold no resources of their own.
func (b *Backend) Close() error { return nil }

// CreateTable creates a table; one that exists already is fine.
func (b *Backend) CreateTable(ctx context.Context, table string) error {
	_, err := b.tables.CreateTable(ctx, table, nil)
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.ErrorCode == string(aztables.TableAlreadyExists) {
		return nil
	}
	return mapError(ctx, "create table "+table, err)
}
