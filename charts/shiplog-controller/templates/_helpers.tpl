{{/*
The chart name, shortened to fit Kubernetes' 63-character label values.
*/}}
{{- define "shiplog-controller.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The fully qualified app name: the release name, plus the chart name unless the release name already has it.
*/}}
{{- define "shiplog-controller.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "shiplog-controller.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels.
*/}}
{{- define "shiplog-controller.labels" -}}
helm.sh/chart: {{ include "shiplog-controller.chart" . }}
{{ include "shiplog-controller.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: shiplog
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Selector labels: stable across upgrades (a Deployment's selector cannot change).
*/}}
{{- define "shiplog-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "shiplog-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "shiplog-controller.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "shiplog-controller.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The Secret holding the API token, and its key.
*/}}
{{- define "shiplog-controller.tokenSecretName" -}}
{{- if .Values.token.existingSecret }}
{{- .Values.token.existingSecret }}
{{- else }}
{{- printf "%s-token" (include "shiplog-controller.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "shiplog-controller.tokenSecretKey" -}}
{{- if .Values.token.existingSecret }}{{ .Values.token.existingSecretKey }}{{ else }}token{{ end }}
{{- end }}

{{/*
Names of the leader-election Lease and the ConfigMap of acknowledged state, both in the release namespace.
*/}}
{{- define "shiplog-controller.leaseName" -}}
{{- include "shiplog-controller.fullname" . }}
{{- end }}

{{- define "shiplog-controller.stateConfigMapName" -}}
{{- printf "%s-state" (include "shiplog-controller.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The shard slots of the state: two fixed names per shard index (the controller writes the spare one, then switches
the head to it), for state.maxShards shards. A list of quoted names, for the Role's resourceNames.
*/}}
{{- define "shiplog-controller.stateShardNames" -}}
{{- $state := include "shiplog-controller.stateConfigMapName" . }}
{{- $names := list }}
{{- range $i := until (int .Values.state.maxShards) }}
{{- $names = append $names (printf "%s-shard-%d-a" $state $i | quote) }}
{{- $names = append $names (printf "%s-shard-%d-b" $state $i | quote) }}
{{- end }}
{{- join ", " $names }}
{{- end }}

{{- define "shiplog-controller.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Checks that the values schema cannot express; fails the render with a message naming the values.
*/}}
{{- define "shiplog-controller.validate" -}}
{{- $app := .Values.auth.app }}
{{- if $app.id }}
{{- if or .Values.token.existingSecret .Values.token.value }}
{{- fail "auth: set either token.existingSecret / token.value (an API token) or auth.app.id (an App), not both" }}
{{- end }}
{{- if not $app.existingSecret }}
{{- fail "auth.app.existingSecret: name the Secret holding the App's private key" }}
{{- end }}
{{- else }}
{{- if or $app.existingSecret $app.installationId }}
{{- fail "auth.app.id: required when auth.app.existingSecret or auth.app.installationId is set" }}
{{- end }}
{{- if and .Values.token.existingSecret .Values.token.value }}
{{- fail "token: set either token.existingSecret or token.value, not both" }}
{{- end }}
{{- if not (or .Values.token.existingSecret .Values.token.value) }}
{{- fail "token: set token.existingSecret (the name of a Secret holding the API token) or token.value, or authenticate as an App (auth.app.id and auth.app.existingSecret)" }}
{{- end }}
{{- end }}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail "replicaCount: more than one replica needs leaderElection.enabled=true, or every replica would send the same records" }}
{{- end }}
{{- /* The controller's rules, with its words (config/settings.ts, config/setting-relations.ts, election/lease-timing.ts); the
bounds and the rules between settings are data in templates/_controller-rules.tpl, generated from the controller's settings. */}}
{{- $max := include "shiplog-controller.maxDurationMs" . | float64 }}
{{- range include "shiplog-controller.durationRules" . | fromJsonArray }}
{{- $path := index . 0 }}{{- $text := toString (index . 1) }}{{- $setting := index . 2 }}{{- $min := index . 3 | float64 }}
{{- if $text }}
{{- $ms := include "shiplog-controller.durationMs" $text | float64 }}
{{- if lt $ms $min }}
{{- fail (printf "%s: must be at least %vms (the controller's %s, rule: minimum %vms)" $path $min $setting $min) }}
{{- end }}
{{- if gt $ms $max }}
{{- fail (printf "%s: must be at most %.0fms (about %.1f days), the longest a timer can wait (got %q) (the controller's %s, rule: maximum %.0fms)" $path $max (divf $max 86400000) $text $setting $max) }}
{{- end }}
{{- end }}
{{- end }}
{{- range include "shiplog-controller.settingRelations" . | fromJsonArray }}
{{- $fields := index . 1 }}{{- $value := index . 2 }}{{- $other := index . 3 }}
{{- if eq (index . 0) "order" }}
{{- if and $value $other }}
{{- $ms := include "shiplog-controller.durationMs" $value | float64 }}
{{- $bound := mulf (include "shiplog-controller.durationMs" $other | float64) (index . 4 | float64) }}
{{- if or (lt $ms $bound) (and (eq $ms $bound) (not (index . 5))) }}
{{- fail (printf "%s: %s (the controller's rule: %s)" $fields (index . 6) (index . 7)) }}
{{- end }}
{{- end }}
{{- else }}
{{- $shared := list }}
{{- range $value }}{{ if has . $other }}{{ $shared = append $shared . }}{{ end }}{{ end }}
{{- if $shared }}
{{- fail (printf "%s: %s %s (the controller's rule: %s)" $fields (join ", " $shared) (index . 4) (index . 5)) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $rule := include "shiplog-controller.containRules" . | fromJsonArray }}
{{- $text := toString (index $rule 1) }}{{- $parts := index $rule 2 }}
{{- if $text }}
{{- range $parts }}
{{- if not (contains . $text) }}
{{- fail (printf "%s: must contain %s, %s" (index $rule 0) (join " and " $parts) (index $rule 3)) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.config.labelSelector }}
{{- if or (not (regexMatch (include "shiplog-controller.labelSelectorPattern" $) .)) (regexMatch (include "shiplog-controller.labelSelectorLongPrefix" $) .) }}
{{- fail (printf "config.labelSelector: not a valid Kubernetes label selector: %q (the controller's --label-selector / SHIPLOG_LABEL_SELECTOR, rule: label selector syntax)" .) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
A duration as the controller reads it (parseDuration: 500ms, 5s, 1.5m, 1h, or 0), in whole milliseconds; the schema
refuses any other text.
*/}}
{{- define "shiplog-controller.durationMs" -}}
{{- $text := trim (toString .) }}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $text }}
{{- $unit := trimPrefix $number $text }}
{{- $scale := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 "" 1 }}
{{- round (mulf (float64 $number) (index $scale $unit)) 0 }}
{{- end }}

{{/*
The controller's environment: one variable per setting the chart sets and is not empty (settingsEnv, generated from
the controller's settings table into _controller-rules.tpl), then what the chart itself decides.
*/}}
{{- define "shiplog-controller.env" -}}
{{ include "shiplog-controller.settingsEnv" . }}
{{- if .Values.auth.app.id }}
- name: SHIPLOG_APP_PRIVATE_KEY_FILE
  value: /var/run/secrets/shiplog-app/private-key.pem
{{- else }}
- name: SHIPLOG_TOKEN_FILE
  value: /var/run/secrets/shiplog/token
{{- end }}
# A heap cap below the memory limit makes V8 collect before the kubelet kills the pod (see maxHeapMb); young
# generation semi-spaces of 8 MB (V8's default is 16) measured 6 MB less RSS and less CPU at 150,000 pods, since the
# caches' long-lived objects are copied less before they are promoted (test/bench/controller-sync.ts). An entry in
# extraEnv, listed later, overrides it.
- name: NODE_OPTIONS
  value: "--max-old-space-size={{ include "shiplog-controller.maxHeapMb" . }} --max-semi-space-size=8"
{{- if .Values.leaderElection.enabled }}
- name: SHIPLOG_LEASE_NAME
  value: {{ include "shiplog-controller.leaseName" . | quote }}
{{- end }}
- name: SHIPLOG_STATE_CONFIGMAP
  value: {{ include "shiplog-controller.stateConfigMapName" . | quote }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
RBAC rules of what the controller's informers list and watch: pods and the workloads that own them. Nothing else.
*/}}
{{- define "shiplog-controller.watchRules" -}}
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: ["apps"]
  resources: ["replicasets", "deployments", "statefulsets", "daemonsets"]
  verbs: ["list", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["list", "watch"]
{{- end }}

{{/*
The V8 heap cap in MB: maxHeapMb, else half of resources.limits.memory (whole Mi, Gi, M or G), at least 128; 128
without a memory limit. A limit in another form is refused with the setting to use instead.
*/}}
{{- define "shiplog-controller.maxHeapMb" -}}
{{- if .Values.maxHeapMb -}}
{{- .Values.maxHeapMb -}}
{{- else -}}
{{- $limit := "" -}}
{{- with .Values.resources }}{{ with .limits }}{{ with .memory }}{{ $limit = toString . }}{{ end }}{{ end }}{{ end -}}
{{- $mi := 0 -}}
{{- if regexMatch "^[0-9]+Gi$" $limit -}}{{- $mi = mul (trimSuffix "Gi" $limit | atoi) 1024 -}}
{{- else if regexMatch "^[0-9]+Mi$" $limit -}}{{- $mi = trimSuffix "Mi" $limit | atoi -}}
{{- else if regexMatch "^[0-9]+G$" $limit -}}{{- $mi = div (mul (trimSuffix "G" $limit | atoi) 1000000000) 1048576 -}}
{{- else if regexMatch "^[0-9]+M$" $limit -}}{{- $mi = div (mul (trimSuffix "M" $limit | atoi) 1000000) 1048576 -}}
{{- else if ne $limit "" -}}
{{- fail (printf "resources.limits.memory %s: the heap cap is derived only from whole Mi, Gi, M or G; set maxHeapMb" $limit) -}}
{{- end -}}
{{- max 128 (div $mi 2) -}}
{{- end -}}
{{- end -}}
