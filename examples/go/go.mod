module github.com/toolhost/toolhost/examples/go

go 1.26.0

require (
	github.com/toolhost/toolhost/gen/go v0.0.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1
	google.golang.org/grpc v1.85.0
)

require (
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// The examples build against the generated code in this checkout, as a user's module does
// with a replace to a checkout (docs/clients.md, "Go"): the module path is not fetchable.
replace github.com/toolhost/toolhost/gen/go => ../../gen/go
