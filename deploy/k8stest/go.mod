module github.com/basaltchain/basalt/deploy/k8stest

go 1.26.8

require (
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	helm.sh/helm/v3 v3.22.0 // indirect
	k8s.io/api v0.37.2 // indirect
	k8s.io/apimachinery v0.37.2 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
