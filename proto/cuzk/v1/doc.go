// Package cuzkv1 is the generated Go code for the cuzk.v1.ProvingEngine gRPC service, the
// interface Curio uses to send SNARK proving work to a proving daemon.
//
// The service definition, proving.proto, repeats Curio's definition field for field, so a
// client generated from either file talks to a server generated from the other. cuzkd serves it
// (see package daemon); a client dials it like this:
//
//	conn, err := grpc.NewClient("unix:///run/curio/cuzk.sock",
//		grpc.WithTransportCredentials(insecure.NewCredentials()))
//	...
//	c := cuzkv1.NewProvingEngineClient(conn)
//	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
//
// Regenerate with proto/generate.sh after editing proving.proto.
package cuzkv1
