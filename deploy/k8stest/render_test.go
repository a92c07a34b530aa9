package k8stest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// chartDir is the chart, from this package's directory.
const chartDir = "../helm/basalt-network"

// manifests are one rendering's objects, decoded into the API types.
type manifests struct {
	ConfigMaps     []corev1.ConfigMap
	Services       []corev1.Service
	StatefulSets   []appsv1.StatefulSet
	Deployments    []appsv1.Deployment
	PDBs           []policyv1.PodDisruptionBudget
	ServiceMonitor []serviceMonitor
}

// serviceMonitor is the part of the Prometheus Operator's ServiceMonitor
// (a CRD, not in the Kubernetes API) the chart writes; strict decoding
// into it catches a misspelt field.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port     string `json:"port"`
			Path     string `json:"path"`
			Interval string `json:"interval"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// loadValues reads YAML (or JSON) values files and merges them in order.
func loadValues(t *testing.T, files ...string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = chartutil.CoalesceTables(v, out)
	}
	return out
}

// render renders the chart with vals as `helm install NAME -n NS` would
// (Helm's engine, the chart's own defaults coalesced) and decodes every
// manifest strictly.
func render(t *testing.T, release, namespace string, vals map[string]any) manifests {
	t.Helper()
	docs, err := renderDocs(release, namespace, vals)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decode(docs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func renderDocs(release, namespace string, vals map[string]any) (map[string]string, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1.30.0", Major: "1", Minor: "30"}
	if err := checkKubeVersion(ch, caps); err != nil {
		return nil, err
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true, Revision: 1}, caps)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, rv)
}

func checkKubeVersion(ch *chart.Chart, caps *chartutil.Capabilities) error {
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return fmt.Errorf("chart needs Kubernetes %s", ch.Metadata.KubeVersion)
	}
	return nil
}

// decode splits the rendered templates into documents and decodes each
// strictly into its API type: an unknown field or a wrong type fails.
func decode(docs map[string]string) (manifests, error) {
	var m manifests
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.HasSuffix(name, ".yaml") {
			continue // NOTES.txt, helpers
		}
		for i, doc := range strings.Split(docs[name], "\n---") {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				return m, fmt.Errorf("%s #%d: %v\n%s", name, i, err, doc)
			}
			var target any
			switch meta.APIVersion + "/" + meta.Kind {
			case "v1/ConfigMap":
				m.ConfigMaps = append(m.ConfigMaps, corev1.ConfigMap{})
				target = &m.ConfigMaps[len(m.ConfigMaps)-1]
			case "v1/Service":
				m.Services = append(m.Services, corev1.Service{})
				target = &m.Services[len(m.Services)-1]
			case "apps/v1/StatefulSet":
				m.StatefulSets = append(m.StatefulSets, appsv1.StatefulSet{})
				target = &m.StatefulSets[len(m.StatefulSets)-1]
			case "apps/v1/Deployment":
				m.Deployments = append(m.Deployments, appsv1.Deployment{})
				target = &m.Deployments[len(m.Deployments)-1]
			case "policy/v1/PodDisruptionBudget":
				m.PDBs = append(m.PDBs, policyv1.PodDisruptionBudget{})
				target = &m.PDBs[len(m.PDBs)-1]
			case "monitoring.coreos.com/v1/ServiceMonitor":
				m.ServiceMonitor = append(m.ServiceMonitor, serviceMonitor{})
				target = &m.ServiceMonitor[len(m.ServiceMonitor)-1]
			default:
				return m, fmt.Errorf("%s #%d: unexpected kind %s %s", name, i, meta.APIVersion, meta.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), target); err != nil {
				return m, fmt.Errorf("%s #%d (%s): %v\n%s", name, i, meta.Kind, err, doc)
			}
		}
	}
	return m, nil
}

func stripComments(doc string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func (m manifests) statefulSet(t *testing.T, suffix string) *appsv1.StatefulSet {
	t.Helper()
	for i := range m.StatefulSets {
		if strings.HasSuffix(m.StatefulSets[i].Name, suffix) {
			return &m.StatefulSets[i]
		}
	}
	t.Fatalf("no StatefulSet *%s", suffix)
	return nil
}

func container(t *testing.T, spec *corev1.PodSpec, name string) *corev1.Container {
	t.Helper()
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	t.Fatalf("no container %s", name)
	return nil
}

// networkValues is the test network's public identity (written by
// deploy/chartconfig from testdata/blockchain-config.json).
const networkValues = "testdata/network-values.json"

// Every values set of the chart's ci/ folder renders, and every manifest
// decodes strictly into the Kubernetes API types; each set's switches show
// in the objects.
func TestChartRenders(t *testing.T) {
	sets, err := filepath.Glob(filepath.Join(chartDir, "ci", "*-values.yaml"))
	if err != nil || len(sets) < 3 {
		t.Fatalf("values sets %v %v", sets, err)
	}
	for _, set := range sets {
		t.Run(filepath.Base(set), func(t *testing.T) {
			vals := loadValues(t, networkValues, set)
			m := render(t, "prod", "chain", vals)
			v := m.statefulSet(t, "-validator")
			if *v.Spec.Replicas != 4 || v.Spec.ServiceName != "prod-basalt-network-nodes" || v.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
				t.Errorf("validators: replicas %d service %s policy %s", *v.Spec.Replicas, v.Spec.ServiceName, v.Spec.PodManagementPolicy)
			}
			if len(v.Spec.VolumeClaimTemplates) != 1 || v.Spec.VolumeClaimTemplates[0].Name != "data" {
				t.Errorf("volumeClaimTemplates %+v", v.Spec.VolumeClaimTemplates)
			}
			pod := v.Spec.Template.Spec
			if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || *sc.RunAsUser == 0 {
				t.Errorf("pod securityContext %+v", sc)
			}
			for _, c := range pod.Containers {
				sc := c.SecurityContext
				if sc == nil || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || len(sc.Capabilities.Drop) != 1 {
					t.Errorf("%s securityContext %+v", c.Name, sc)
				}
				if c.LivenessProbe == nil || c.ReadinessProbe == nil || c.Resources.Requests.Cpu().IsZero() {
					t.Errorf("%s: probes or resources missing", c.Name)
				}
			}
			node := container(t, &pod, "basalt")
			if node.LivenessProbe.HTTPGet.Path != "/liveness" || node.ReadinessProbe.HTTPGet.Path != "/readiness" {
				t.Errorf("node probes %+v %+v", node.LivenessProbe.HTTPGet, node.ReadinessProbe.HTTPGet)
			}
			var headless *corev1.Service
			for i := range m.Services {
				if m.Services[i].Name == v.Spec.ServiceName {
					headless = &m.Services[i]
				}
			}
			if headless == nil || headless.Spec.ClusterIP != "None" || !headless.Spec.PublishNotReadyAddresses {
				t.Errorf("headless service %+v", headless)
			}
			var static []string
			if len(m.ConfigMaps) != 1 || json.Unmarshal([]byte(m.ConfigMaps[0].Data["static-nodes.json"]), &static) != nil || len(static) != 4 ||
				!strings.HasSuffix(static[3], "@prod-basalt-network-validator-3.prod-basalt-network-nodes.chain.svc.cluster.local:30303") {
				t.Errorf("static nodes %v", static)
			}
			privacy := vals["privacy"] != nil
			hasPrivacy := false
			for _, c := range pod.Containers {
				hasPrivacy = hasPrivacy || c.Name == "privacy"
			}
			if hasPrivacy != privacy || strings.Contains(strings.Join(node.Args, " "), "--privacy-enabled") != privacy {
				t.Errorf("privacy container %v, want %v", hasPrivacy, privacy)
			}
			_, signer := vals["signer"]
			if (len(m.Deployments) == 1) != signer {
				t.Errorf("signer deployments %d, want %v", len(m.Deployments), signer)
			}
			switch filepath.Base(set) {
			case "validators-values.yaml":
				if len(m.PDBs) != 1 || m.PDBs[0].Spec.MaxUnavailable.IntValue() != 1 || v.Spec.Template.Annotations["prometheus.io/scrape"] != "true" {
					t.Errorf("PDB %+v annotations %v", m.PDBs, v.Spec.Template.Annotations)
				}
			case "privacy-signer-values.yaml":
				if len(m.ServiceMonitor) != 1 || len(m.StatefulSets) != 2 || len(m.PDBs) != 2 {
					t.Errorf("servicemonitors %d statefulsets %d pdbs %d", len(m.ServiceMonitor), len(m.StatefulSets), len(m.PDBs))
				}
			case "postgres-values.yaml":
				env := map[string]corev1.EnvVar{}
				for _, e := range container(t, &pod, "privacy").Env {
					env[e.Name] = e
				}
				if !strings.HasPrefix(env["ORION_STORAGE"].Value, "sql:postgresql://") || env["POSTGRES_PASSWORD"].ValueFrom.SecretKeyRef.Name != "basalt-postgres" {
					t.Errorf("postgres env %+v", env)
				}
				if len(m.PDBs) != 0 || *v.Spec.VolumeClaimTemplates[0].Spec.StorageClassName != "fast-ssd" {
					t.Errorf("PDBs %d storage class", len(m.PDBs))
				}
			}
		})
	}
}

// A values set the chart cannot use fails to render with a message that
// says why, and a manifest with an unknown field or a wrong type does not
// decode.
func TestChartRefusesAndStrictDecoding(t *testing.T) {
	if _, err := renderDocs("x", "y", map[string]any{}); err == nil || !strings.Contains(err.Error(), "network.validators is empty") {
		t.Errorf("no network: %v", err)
	}
	vals := loadValues(t, networkValues)
	vals["privacy"] = map[string]any{"enabled": true, "storage": "mysql"}
	if _, err := renderDocs("x", "y", vals); err == nil || !strings.Contains(err.Error(), "privacy.storage must be pebble or postgres") {
		t.Errorf("bad storage: %v", err)
	}
	for _, doc := range []string{
		"apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {clusterIP: None, publishNotReadyAdresses: true}\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: a}\nspec: {replicas: four}\n",
	} {
		if _, err := decode(map[string]string{"t.yaml": doc}); err == nil {
			t.Errorf("decoded %q", doc)
		}
	}
}
