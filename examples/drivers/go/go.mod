module streamharness.example/driver

go 1.19
