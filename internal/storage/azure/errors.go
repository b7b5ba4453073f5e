package azure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/harmony/harmony/internal/storage"
)

// serviceError is a failed call mapped to the contract's typed errors. It
// unwraps to both the typed error (for errors.Is) and the SDK's error.
type serviceError struct {
	op     string
	kind   error // a storage.Err* value
	status int
	code   string
	msg    string
	cause  error
}

func (e *serviceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "azure %s: %v", e.op, e.kind)
	if e.status != 0 || e.code != "" {
		fmt.Fprintf(&b, " (HTTP %d %s)", e.status, e.code)
	}
	if e.msg != "" {
		b.WriteString(": " + e.msg)
	}
	return b.String()
}

func (e *serviceError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// mapError turns an SDK error into one wrapping a typed storage error. op
// names the call for the message. Context cancellation passes through as is.
func mapError(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("azure %s: %w", op, ctxErr)
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		msg := serviceMessage(re.RawResponse)
		return &serviceError{op: op, kind: kindOf(re.StatusCode, re.ErrorCode, msg), status: re.StatusCode, code: re.ErrorCode, msg: msg, cause: err}
	}
	if transportFailure(err) {
		return &serviceError{op: op, kind: storage.ErrTransient, msg: err.Error(), cause: err}
	}
	return fmt.Errorf("azure %s: %w", op, err)
}

// transportFailure reports an error with no response behind it: the
// connection failed or a try timed out, and the retry policy gave up.
func transportFailure(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) { // every client error is one; look at its cause
		err = ue.Err
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// checkIfMatch refuses an If-Match value that cannot be sent as a header (a
// control character would also break the batch framing). Such a value cannot
// match any entity, so it is a failed precondition.
func checkIfMatch(op, ifMatch string) error {
	for i := 0; i < len(ifMatch); i++ {
		if c := ifMatch[i]; c < 0x20 || c > 0x7e {
			return &serviceError{op: op, kind: storage.ErrPrecondition, msg: "the ETag has a character no ETag has"}
		}
	}
	return nil
}

// foreignETag reports whether an If-Match value has a form the Table service
// never issues (its ETags look like W/"datetime'…'"). The service answers such
// a value with 400, where the contract wants a failed precondition: it is
// what a caller gets for a tampered or stale-format ETag.
func foreignETag(ifMatch string) bool {
	return ifMatch != "" && ifMatch != storage.AnyETag && !strings.HasPrefix(ifMatch, `W/"datetime'`)
}

// withIfMatch turns a 400 caused by a foreign ETag into ErrPrecondition.
func withIfMatch(err error, ifMatch string) error {
	var se *serviceError
	if errors.As(err, &se) && se.status == http.StatusBadRequest && errors.Is(se.kind, storage.ErrInvalid) && foreignETag(ifMatch) {
		se.kind = storage.ErrPrecondition
	}
	return err
}

// kindOf maps a service status and error code to a typed storage error. Codes
// win over statuses; Cosmos DB and Azurite sometimes differ from Azure in the
// status they pair with a code.
func kindOf(status int, code, msg string) error {
	switch code {
	case "ResourceNotFound", "TableNotFound", "EntityNotFound", "BlobNotFound", "ContainerNotFound":
		return storage.ErrNotFound
	case "EntityAlreadyExists", "BlobAlreadyExists":
		return storage.ErrExists
	case "UpdateConditionNotSatisfied", "ConditionNotMet":
		return storage.ErrPrecondition
	case "EntityTooLarge", "PropertyValueTooLarge", "RequestBodyTooLarge", "TooManyProperties", "KeyValueTooLarge":
		return storage.ErrTooLarge
	case "InvalidDuplicateRow", "CommandsInBatchActedOnDifferentPartitions":
		return storage.ErrInvalidTransaction
	case "TableBeingDeleted", "ServerBusy", "OperationTimedOut", "InternalError":
		return storage.ErrTransient
	case "InvalidInput", "OutOfRangeInput", "InvalidResourceName", "InvalidUri":
		// The front validates keys, so this is rare; the message says whether
		// a key was the problem.
		if strings.Contains(msg, "PartitionKey") || strings.Contains(msg, "RowKey") {
			return storage.ErrInvalidKey
		}
		return storage.ErrInvalid
	}
	switch {
	case status == http.StatusNotFound:
		return storage.ErrNotFound
	case status == http.StatusConflict:
		return storage.ErrExists
	case status == http.StatusPreconditionFailed:
		return storage.ErrPrecondition
	case status == http.StatusRequestEntityTooLarge:
		return storage.ErrTooLarge
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		return storage.ErrTransient
	case status == http.StatusBadRequest:
		return storage.ErrInvalid
	}
	return fmt.Errorf("azure: unexpected HTTP %d %s", status, code)
}

// odataError is a Table service error body.
type odataError struct {
	Error struct {
		Code    string `json:"code"`
		Message struct {
			Value string `json:"value"`
		} `json:"message"`
	} `json:"odata.error"`
}

// serviceMessage is the first line of a Table service error message, without
// the request id and time that follow it.
func serviceMessage(resp *http.Response) string {
	if resp == nil {
		return ""
	}
	body, err := runtime.Payload(resp)
	if err != nil {
		return ""
	}
	var oe odataError
	if json.Unmarshal(body, &oe) != nil {
		return ""
	}
	first, _, _ := strings.Cut(oe.Error.Message.Value, "\n")
	return first
}
