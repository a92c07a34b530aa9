package k8stest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// runner starts rendered pods as podman containers, as a kubelet would
// with the pieces the chart uses: each pod gets an address of its own on
// the loopback network (127.x.y.z, all of 127/8 is loopback) that every
// container of it listens on (status.podIP), the cluster's DNS names
// (pods of the headless Service, Services) map to those addresses
// (--add-host), ConfigMap, Secret, emptyDir and volumeClaimTemplate
// volumes are host folders owned as the pod's securityContext says,
// $(VAR) references in env, command and args expand, and probes are HTTP
// GETs on the pod's address.
type runner struct {
	t         *testing.T
	dir       string
	namespace string
	domain    string
	prefix    string // containers' name prefix
	net       [2]byte
	configMap map[string]map[string]string
	secrets   map[string]map[string]string

	pods  []*pod
	hosts []string // --add-host entries
}

// pod is one pod to run.
type pod struct {
	name, ip string
	labels   map[string]string
	spec     corev1.PodSpec
	claims   []corev1.PersistentVolumeClaim
	started  []string // container names
}

func newRunner(t *testing.T, namespace string, secrets map[string]map[string]string) *runner {
	r := &runner{t: t, dir: t.TempDir(), namespace: namespace, domain: "cluster.local", secrets: secrets,
		configMap: map[string]map[string]string{},
		prefix:    fmt.Sprintf("k8stest-%d-", rand.IntN(1e6)),
		net:       [2]byte{byte(20 + rand.IntN(200)), byte(1 + rand.IntN(250))}}
	os.Chmod(r.dir, 0o755)
	t.Cleanup(r.stop)
	return r
}

// add lays out the pods of a rendered release.
func (r *runner) add(m manifests) {
	for _, cm := range m.ConfigMaps {
		r.configMap[cm.Name] = cm.Data
	}
	for _, s := range m.StatefulSets {
		for i := range int(*s.Spec.Replicas) {
			r.newPod(fmt.Sprintf("%s-%d", s.Name, i), s.Spec.Template, s.Spec.VolumeClaimTemplates,
				map[string]string{appsv1.PodIndexLabel: strconv.Itoa(i)}, s.Spec.ServiceName)
		}
	}
	for _, d := range m.Deployments {
		for i := range int(*d.Spec.Replicas) {
			r.newPod(fmt.Sprintf("%s-%d", d.Name, i), d.Spec.Template, nil, nil, "")
		}
	}
	// A Service's name maps to the address of the first pod it selects.
	for _, s := range m.Services {
		if s.Spec.ClusterIP == corev1.ClusterIPNone {
			continue
		}
		for _, p := range r.pods {
			if selects(s.Spec.Selector, p.labels) {
				r.hosts = append(r.hosts, fmt.Sprintf("%s.%s.svc.%s:%s", s.Name, r.namespace, r.domain, p.ip))
				break
			}
		}
	}
}

func selects(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (r *runner) newPod(name string, tmpl corev1.PodTemplateSpec, claims []corev1.PersistentVolumeClaim, extra map[string]string, service string) {
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	for k, v := range extra {
		labels[k] = v
	}
	p := &pod{name: name, labels: labels, spec: tmpl.Spec, claims: claims,
		ip: fmt.Sprintf("127.%d.%d.%d", r.net[0], r.net[1], len(r.pods)+2)}
	r.pods = append(r.pods, p)
	if service != "" {
		r.hosts = append(r.hosts, fmt.Sprintf("%s.%s.%s.svc.%s:%s", name, service, r.namespace, r.domain, p.ip))
	}
}

// start starts every container of every pod.
func (r *runner) start() {
	for _, p := range r.pods {
		r.startPod(p)
	}
}

func (r *runner) startPod(p *pod) {
	t := r.t
	sc := p.spec.SecurityContext
	if sc == nil || sc.RunAsUser == nil || sc.FSGroup == nil {
		t.Fatalf("pod %s has no runAsUser/fsGroup", p.name)
	}
	uid, gid := int(*sc.RunAsUser), int(*sc.FSGroup)
	vols := map[string]string{} // volume name -> host folder
	for _, c := range p.claims {
		vols[c.Name] = r.folder(p, c.Name, uid, gid, 0o770)
	}
	for _, v := range p.spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			data, ok := r.configMap[v.ConfigMap.Name]
			if !ok {
				t.Fatalf("pod %s: no ConfigMap %s", p.name, v.ConfigMap.Name)
			}
			vols[v.Name] = r.files(p, v.Name, data, nil, 0, gid, 0o644)
		case v.Secret != nil:
			data, ok := r.secrets[v.Secret.SecretName]
			if !ok {
				t.Fatalf("pod %s: no Secret %s", p.name, v.Secret.SecretName)
			}
			mode := 0o644
			if v.Secret.DefaultMode != nil {
				mode = int(*v.Secret.DefaultMode)
			}
			vols[v.Name] = r.files(p, v.Name, data, v.Secret.Items, 0, gid, os.FileMode(mode))
		case v.EmptyDir != nil:
			vols[v.Name] = r.folder(p, v.Name, uid, gid, 0o770)
		default:
			t.Fatalf("pod %s: volume %s of a kind the runner does not know", p.name, v.Name)
		}
	}
	for _, c := range p.spec.Containers {
		args := []string{"run", "-d", "--name", r.prefix + p.name + "-" + c.Name, "--network", "host",
			"--restart", "always", "--user", fmt.Sprintf("%d:%d", uid, int(*sc.RunAsGroup)), "--group-add", strconv.Itoa(gid)}
		args = append(args, runFlags...)
		for _, h := range r.hosts {
			args = append(args, "--add-host", h)
		}
		if cs := c.SecurityContext; cs != nil {
			if cs.ReadOnlyRootFilesystem != nil && *cs.ReadOnlyRootFilesystem {
				args = append(args, "--read-only", "--read-only-tmpfs=false")
			}
			if cs.AllowPrivilegeEscalation != nil && !*cs.AllowPrivilegeEscalation {
				args = append(args, "--security-opt", "no-new-privileges")
			}
			if cs.Capabilities != nil {
				for _, d := range cs.Capabilities.Drop {
					args = append(args, "--cap-drop", strings.ToLower(string(d)))
				}
			}
		}
		vars := map[string]string{}
		var order []string
		for _, e := range c.Env {
			val := e.Value
			if e.ValueFrom != nil {
				switch {
				case e.ValueFrom.FieldRef != nil:
					val = fieldRef(p, e.ValueFrom.FieldRef.FieldPath)
				case e.ValueFrom.SecretKeyRef != nil:
					val = r.secrets[e.ValueFrom.SecretKeyRef.Name][e.ValueFrom.SecretKeyRef.Key]
				default:
					t.Fatalf("%s/%s: env %s from a source the runner does not know", p.name, c.Name, e.Name)
				}
			} else {
				val = expand(val, vars)
			}
			if _, seen := vars[e.Name]; !seen {
				order = append(order, e.Name)
			}
			vars[e.Name] = val
		}
		for _, k := range order {
			args = append(args, "-e", k+"="+vars[k])
		}
		for _, m := range c.VolumeMounts {
			host, ok := vols[m.Name]
			if !ok {
				t.Fatalf("%s/%s: mount of unknown volume %s", p.name, c.Name, m.Name)
			}
			opt := ""
			if m.ReadOnly {
				opt = ":ro"
			}
			args = append(args, "-v", host+":"+m.MountPath+opt)
		}
		cmd := append(append([]string{}, c.Command...), c.Args...)
		for i := range cmd {
			cmd[i] = expand(cmd[i], vars)
		}
		args = append(args, "--entrypoint", cmd[0], c.Image)
		args = append(args, cmd[1:]...)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := podman(ctx, args...)
		cancel()
		if err != nil {
			t.Fatalf("start %s/%s: %v", p.name, c.Name, err)
		}
		p.started = append(p.started, c.Name)
	}
}

// restartPod replaces a pod's containers by new ones on the same volumes,
// as a StatefulSet's rolling update replaces a pod (same name, same
// claim).
func (r *runner) restartPod(p *pod) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, c := range p.started {
		if _, err := podman(ctx, "rm", "-f", "-t", "10", r.prefix+p.name+"-"+c); err != nil {
			r.t.Fatal(err)
		}
	}
	p.started = nil
	r.startPod(p)
}

// podReady runs a pod's readiness probes.
func (r *runner) podReady(p *pod) error {
	for i := range p.spec.Containers {
		if err := r.probe(p, &p.spec.Containers[i], p.spec.Containers[i].ReadinessProbe); err != nil {
			return err
		}
	}
	return nil
}

// fieldRef answers the downward API fields the chart uses.
func fieldRef(p *pod, path string) string {
	switch path {
	case "metadata.name":
		return p.name
	case "status.podIP":
		return p.ip
	}
	if m := regexp.MustCompile(`^metadata\.labels\['(.+)'\]$`).FindStringSubmatch(path); m != nil {
		return p.labels[m[1]]
	}
	panic("downward API field the runner does not know: " + path)
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces $(VAR) by a defined variable, as the kubelet does
// (an undefined reference stays as written).
func expand(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := vars[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

// folder makes a pod's writable folder.
func (r *runner) folder(p *pod, name string, uid, gid int, mode os.FileMode) string {
	d := filepath.Join(r.dir, p.name, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Chown(d, uid, gid); err != nil {
		r.t.Fatal(err)
	}
	os.Chmod(d, mode|os.ModeSetgid)
	return d
}

// files writes a ConfigMap's or Secret's keys (or the items chosen) as
// files, group-owned by the pod's fsGroup.
func (r *runner) files(p *pod, name string, data map[string]string, items []corev1.KeyToPath, uid, gid int, mode os.FileMode) string {
	d := filepath.Join(r.dir, p.name, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		r.t.Fatal(err)
	}
	paths := map[string]string{}
	if items == nil {
		for k := range data {
			paths[k] = k
		}
	}
	for _, it := range items {
		paths[it.Key] = it.Path
	}
	for k, rel := range paths {
		v, ok := data[k]
		if !ok {
			r.t.Fatalf("pod %s volume %s: no key %s", p.name, name, k)
		}
		f := filepath.Join(d, rel)
		if err := os.WriteFile(f, []byte(v), mode); err != nil {
			r.t.Fatal(err)
		}
		os.Chmod(f, mode)
		if err := os.Chown(f, uid, gid); err != nil {
			r.t.Fatal(err)
		}
	}
	return d
}

// probe runs a container's probe once: nil when it answers 2xx/3xx.
func (r *runner) probe(p *pod, c *corev1.Container, pr *corev1.Probe) error {
	if pr == nil || pr.HTTPGet == nil {
		return fmt.Errorf("%s/%s: no HTTP probe", p.name, c.Name)
	}
	port := pr.HTTPGet.Port.IntValue()
	if pr.HTTPGet.Port.StrVal != "" {
		for _, cp := range c.Ports {
			if cp.Name == pr.HTTPGet.Port.StrVal {
				port = int(cp.ContainerPort)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s:%d%s", p.ip, port, pr.HTTPGet.Path), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("%s/%s %s: HTTP %d", p.name, c.Name, pr.HTTPGet.Path, resp.StatusCode)
	}
	return nil
}

// allProbes runs every container's liveness and readiness probes.
func (r *runner) allProbes() error {
	for _, p := range r.pods {
		for i := range p.spec.Containers {
			c := &p.spec.Containers[i]
			for _, pr := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
				if err := r.probe(p, c, pr); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// pod returns the pod named name.
func (r *runner) pod(name string) *pod {
	for _, p := range r.pods {
		if p.name == name {
			return p
		}
	}
	r.t.Fatalf("no pod %s", name)
	return nil
}

// stop removes every container (and dumps their logs if the test failed).
func (r *runner) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, p := range r.pods {
		for _, c := range p.started {
			name := r.prefix + p.name + "-" + c
			if r.t.Failed() {
				logs, _ := podman(ctx, "logs", "--tail", "40", name)
				r.t.Logf("--- %s:\n%s", name, logs)
			}
			podman(ctx, "rm", "-f", "-t", "5", name)
		}
	}
}
