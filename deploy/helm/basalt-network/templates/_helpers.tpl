{{/* The release's name prefix of every object. */}}
{{- define "basalt-network.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "basalt-network.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "basalt-network.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "basalt-network.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The headless Service of every node: its pods' DNS names. */}}
{{- define "basalt-network.nodesService" -}}
{{ include "basalt-network.fullname" . }}-nodes
{{- end -}}

{{/* The domain of the nodes' DNS names. */}}
{{- define "basalt-network.nodesDomain" -}}
{{ include "basalt-network.nodesService" . }}.{{ .Release.Namespace }}.svc.{{ .Values.clusterDomain }}
{{- end -}}

{{/* The address a program in the pod reaches another one at. */}}
{{- define "basalt-network.podAddress" -}}
{{- if eq .Values.listenAddress "0.0.0.0" -}}127.0.0.1{{- else -}}{{ .Values.listenAddress }}{{- end -}}
{{- end -}}

{{/* Validator i's privacy manager node URL. */}}
{{- define "basalt-network.privacyNodeURL" -}}
http://{{ include "basalt-network.fullname" .root }}-validator-{{ .index }}.{{ include "basalt-network.nodesDomain" .root }}:{{ .root.Values.ports.privacyNode }}/
{{- end -}}

{{/* The downward API variables the arguments use. */}}
{{- define "basalt-network.podEnv" -}}
- name: POD_NAME
  valueFrom: {fieldRef: {fieldPath: metadata.name}}
- name: POD_IP
  valueFrom: {fieldRef: {fieldPath: status.podIP}}
- name: POD_INDEX
  valueFrom: {fieldRef: {fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}
{{- end -}}

{{/* A basalt node's container (validator or RPC node). */}}
{{- define "basalt-network.nodeContainer" -}}
{{- $v := .root.Values -}}
{{- $apis := concat $v.node.rpcApis (list (get (dict "qbft" "QBFT" "ibft2" "IBFT" "clique" "CLIQUE" "ethash" "MINER") $v.network.consensus)) -}}
{{- if and $v.privacy.enabled .validator }}{{ $apis = concat $apis (list "EEA" "PRIV") }}{{ end -}}
{{- $apis = $apis | compact | join "," -}}
- name: basalt
  image: {{ include "basalt-network.image" .root }}
  imagePullPolicy: {{ $v.image.pullPolicy }}
  command: [/usr/local/bin/basalt]
  args:
    - --data-path=/data
    - --genesis-file=/config/genesis.json
    {{- if .validator }}
    - --node-private-key-file=/keys/validator-$(POD_INDEX).key
    {{- end }}
    - --logging={{ $v.node.logLevel }}
    - --p2p-enabled=true
    - --p2p-host=$(POD_IP)
    - --p2p-interface={{ $v.listenAddress }}
    - --p2p-port={{ $v.ports.p2p }}
    - --discovery-enabled=false
    - --static-nodes-file=/config/static-nodes.json
    - --Xdns-enabled=true
    - --Xp2p-static-reconnect-seconds=5
    - --host-allowlist=*
    - --rpc-http-enabled=true
    - --rpc-http-host={{ $v.listenAddress }}
    - --rpc-http-port={{ $v.ports.http }}
    - --rpc-http-api={{ $apis }}
    - --rpc-http-cors-origins=*
    - --rpc-ws-enabled=true
    - --rpc-ws-host={{ $v.listenAddress }}
    - --rpc-ws-port={{ $v.ports.ws }}
    - --rpc-ws-api={{ $apis }}
    - --graphql-http-enabled=true
    - --graphql-http-host={{ $v.listenAddress }}
    - --graphql-http-port={{ $v.ports.graphql }}
    - --metrics-enabled=true
    - --metrics-host={{ $v.listenAddress }}
    - --metrics-port={{ $v.ports.metrics }}
    - --min-gas-price={{ $v.node.minGasPrice }}
    {{- if and $v.privacy.enabled .validator }}
    - --privacy-enabled=true
    - --privacy-url=http://{{ include "basalt-network.podAddress" .root }}:{{ $v.ports.privacyClient }}
    - --privacy-public-key-file=/keys/validator-$(POD_INDEX).tm.pub
    {{- end }}
    {{- range $v.node.extraArgs }}
    - {{ . | quote }}
    {{- end }}
  env:
    {{- include "basalt-network.podEnv" . | nindent 4 }}
    {{- with $v.node.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    - {name: http, containerPort: {{ $v.ports.http }}, protocol: TCP}
    - {name: ws, containerPort: {{ $v.ports.ws }}, protocol: TCP}
    - {name: graphql, containerPort: {{ $v.ports.graphql }}, protocol: TCP}
    - {name: metrics, containerPort: {{ $v.ports.metrics }}, protocol: TCP}
    - {name: p2p, containerPort: {{ $v.ports.p2p }}, protocol: TCP}
  livenessProbe:
    httpGet: {path: /liveness, port: http}
    {{- toYaml $v.probes.liveness | nindent 4 }}
  readinessProbe:
    httpGet: {path: /readiness, port: http}
    {{- toYaml $v.probes.readiness | nindent 4 }}
  resources:
    {{- toYaml .resources | nindent 4 }}
  securityContext:
    {{- toYaml $v.securityContext | nindent 4 }}
  volumeMounts:
    - {name: data, mountPath: /data}
    - {name: config, mountPath: /config, readOnly: true}
    - {name: tmp, mountPath: /tmp}
    {{- if .validator }}
    - {name: keys, mountPath: /keys, readOnly: true}
    {{- end }}
{{- end -}}
