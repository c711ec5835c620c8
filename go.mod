module github.com/cuzk-go/cuzk

go 1.26.8

require (
	github.com/consensys/gnark-crypto v0.22.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/crypto v0.59.0
	golang.org/x/sync v0.25.0
)

require (
	github.com/bits-and-blooms/bitset v1.25.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
