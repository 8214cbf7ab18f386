module github.com/fiveonit/engine

go 1.26

require (
	github.com/chewxy/math32 v1.11.1
	github.com/coder/websocket v1.8.15
	github.com/mlange-42/arche v0.15.3
)

require github.com/stretchr/testify v1.12.1 // indirect
