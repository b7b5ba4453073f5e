package azure

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// account is what a connection string says about one storage account.
type account struct {
	name string
	key  string // base64 shared key; empty when sas is set
	sas  string // shared access signature, without the leading '?'

	tableURL string // service endpoints, without a trailing slash
	blobURL  string // empty when the account has no blob service (Cosmos DB)
}

// parseConnectionString reads an Azure Storage or Cosmos DB for Table
// connection string: AccountName with AccountKey or SharedAccessSignature,
// and either explicit TableEndpoint/BlobEndpoint (Azurite, Cosmos, custom
// domains) or DefaultEndpointsProtocol and EndpointSuffix.
func parseConnectionString(s string) (account, error) {
	kv := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return account{}, errors.New("azure: connection string has a part without '=' (expected Key=Value;Key=Value)")
		}
		kv[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if strings.EqualFold(kv["usedevelopmentstorage"], "true") {
		return account{}, errors.New("azure: UseDevelopmentStorage=true is not supported by the Azure SDK for Go; " +
			"give Azurite's full connection string (DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=...;" +
			"BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;TableEndpoint=http://127.0.0.1:10002/devstoreaccount1)")
	}

	a := account{name: kv["accountname"], key: kv["accountkey"], sas: strings.TrimPrefix(kv["sharedaccesssignature"], "?")}
	if a.key == "" && a.sas == "" {
		return account{}, errors.New("azure: connection string needs AccountKey or SharedAccessSignature")
	}
	if a.key != "" && a.name == "" {
		return account{}, errors.New("azure: connection string has AccountKey but no AccountName")
	}

	protocol := kv["defaultendpointsprotocol"]
	if protocol == "" {
		protocol = "https"
	}
	suffix := kv["endpointsuffix"]
	if suffix == "" {
		suffix = "core.windows.net"
	}
	endpoint := func(key, service string) (string, error) {
		if e := kv[key]; e != "" {
			u, err := url.Parse(e)
			if err != nil || u.Scheme == "" || u.Host == "" {
				return "", fmt.Errorf("azure: connection string %s %q is not an absolute URL", key, e)
			}
			u.RawQuery = ""
			return strings.TrimRight(u.String(), "/"), nil
		}
		if a.name == "" {
			return "", nil
		}
		return fmt.Sprintf("%s://%s.%s.%s", protocol, a.name, service, suffix), nil
	}
	var err error
	if a.tableURL, err = endpoint("tableendpoint", "table"); err != nil {
		return account{}, err
	}
	if a.tableURL == "" {
		return account{}, errors.New("azure: connection string needs AccountName or TableEndpoint")
	}
	if a.blobURL, err = endpoint("blobendpoint", "blob"); err != nil {
		return account{}, err
	}
	if kv["blobendpoint"] == "" && isCosmos(a.tableURL) {
		a.blobURL = "" // a Cosmos DB account has no blob service to derive
	}
	return a, nil
}

// isCosmos reports whether a table endpoint is Cosmos DB for Table, which
// wants MERGE sent as POST with X-HTTP-Method inside a batch (as aztables
// does for single calls).
func isCosmos(tableURL string) bool {
	u, err := url.Parse(tableURL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	// The same domains aztables checks, sovereign clouds included.
	return strings.Contains(h, ".table.cosmos.") || strings.Contains(h, ".table.cosmosdb.") ||
		(h == "localhost" && u.Port() == "8902")
}
