package host

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// The field numbers serve looks for in a host's Session message:
// HostMessage.issue, and its Issue.sample_data.
const (
	hostMessageIssue = 1
	issueSampleData  = 2
)

// carriesSamples reports whether msg, a HostMessage's wire bytes, is an
// Issue carrying its samples' bytes (the Network division). It scans the
// tags only: every other message passes without being decoded.
func carriesSamples(msg []byte) bool {
	for _, issue := range fields(msg, hostMessageIssue) {
		if len(fields(issue, issueSampleData)) > 0 {
			return true
		}
	}
	return false
}

// fields returns the bytes of every length-delimited field num of a
// message's wire bytes (a message field may come in several parts, which
// a decoder merges); nil when the bytes are malformed: the plugin then
// refuses the message as it comes.
func fields(msg []byte, num protowire.Number) [][]byte {
	var out [][]byte
	for len(msg) > 0 {
		n, typ, k := protowire.ConsumeTag(msg)
		if k < 0 {
			return nil
		}
		msg = msg[k:]
		if n == num && typ == protowire.BytesType {
			v, k := protowire.ConsumeBytes(msg)
			if k < 0 {
				return nil
			}
			out = append(out, v)
			msg = msg[k:]
			continue
		}
		k = protowire.ConsumeFieldValue(n, typ, msg)
		if k < 0 {
			return nil
		}
		msg = msg[k:]
	}
	return out
}

// loadCarried loads the samples an Issue carries into the plugin (its
// LoadSamples, inline bytes) and returns the Issue without them, for the
// plugin: a plugin of any v1 minor gets its samples as it always does.
//
// # Errors
//
// A message that does not decode; the plugin's refusal of the samples.
func loadCarried(ctx context.Context, conn *grpc.ClientConn, msg []byte) ([]byte, error) {
	var m backendv1.HostMessage
	if err := proto.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("network division: a query that does not decode: %w", err)
	}
	issue := m.GetIssue()
	resp, err := backendv1grpc.NewBackendClient(conn).LoadSamples(ctx, &backendv1.LoadSamplesRequest{Samples: issue.GetSampleData()})
	if err != nil {
		return nil, fmt.Errorf("network division: load a query's %d samples into the plugin: %w", len(issue.GetSampleData()), err)
	}
	if st := resp.GetStatus(); st.GetCode() != 0 {
		return nil, fmt.Errorf("network division: the plugin refused a query's %d samples: %s", len(issue.GetSampleData()), st.GetMessage())
	}
	issue.SampleData = nil
	out, err := proto.Marshal(&m)
	if err != nil {
		return nil, fmt.Errorf("network division: %w", err)
	}
	return out, nil
}
