// A fence: the npm projects below hold node_modules, and some packages
// ship Go example sources there, which "go vet ./..." and "go test ./..."
// of the project would otherwise try to build. A directory with a go.mod
// of its own is another module, which ./... never walks into.
module corpusnpm

go 1.26
