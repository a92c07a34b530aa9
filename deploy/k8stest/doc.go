// Package k8stest tests what deploy/ ships: the image of
// deploy/image/Containerfile (built with deploy/build.sh, run with podman)
// and the Helm chart deploy/helm/basalt-network, rendered through Helm's
// Go library, decoded strictly into the Kubernetes API types and run as
// containers by a small runner (no Kubernetes cluster can run pods here).
//
// It is a module of its own so that Helm and the Kubernetes API types
// (and the versions of shared dependencies they require) never reach the
// basalt module's programs.
package k8stest
