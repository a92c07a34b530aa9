package k8stest
