module github.com/icrl-go/icrl

go 1.24

require golang.org/x/exp v0.0.0-20250620022241-b7579e27df2b
