package backendv1grpc

import (
	"context"
	"crypto/subtle"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TokenMetadataKey is the gRPC metadata key that carries the token of a
// plugin served for reattachment: every call of the host carries it, and
// the plugin refuses a call without it.
const TokenMetadataKey = "mlperf-host-token"

// TokenServerOptions returns the server options that refuse every call
// (the backend's and go-plugin's own services alike) whose metadata does
// not carry token, with codes.Unauthenticated.
func TokenServerOptions(token string) []grpc.ServerOption {
	check := func(ctx context.Context) error {
		md, _ := metadata.FromIncomingContext(ctx)
		for _, got := range md.Get(TokenMetadataKey) {
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
				return nil
			}
		}
		return status.Error(codes.Unauthenticated, "mlperf-host plugin: missing or wrong token: pass the token the plugin printed")
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := check(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := check(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
}

// TokenCredentials returns the dial option that sends token with every
// call. It does not require transport security: the token is for a
// plugin on the same machine, reached through a socket in a directory
// only its user can enter, or through the loopback interface.
func TokenCredentials(token string) grpc.DialOption {
	return grpc.WithPerRPCCredentials(tokenCreds(token))
}

type tokenCreds string

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{TokenMetadataKey: string(t)}, nil
}

func (tokenCreds) RequireTransportSecurity() bool { return false }
