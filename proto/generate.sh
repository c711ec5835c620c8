#!/bin/sh
# generate.sh regenerates the Go code for cuzk/v1/proving.proto.
# Needs protoc (Debian: protobuf-compiler) and the two plugins at the versions the committed code
# was made with:
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.1
set -eu
cd "$(dirname "$0")"
protoc --proto_path=. \
	--go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative \
	cuzk/v1/proving.proto
