module streamharness.example/store

go 1.19
