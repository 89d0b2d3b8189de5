module example.com/notes-demo

go 1.26.0
