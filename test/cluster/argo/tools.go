//go:build tools

// Package argo pins Argo Rollouts' controller command, so `go mod tidy` keeps its dependencies.
package argo

import (
	_ "github.com/argoproj/argo-rollouts/cmd/rollouts-controller"
)
