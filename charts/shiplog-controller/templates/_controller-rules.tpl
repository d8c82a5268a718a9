{{/*
Generated from the controller's settings table (packages/controller/src/config/settings.ts, and
election/lease-timing.ts, kube/informers.ts, kube/label-selector.ts) by `pnpm generate:settings`; do not edit.
*/}}

{{/* The controller's variable of each setting the chart sets, when its value is not empty. */}}
{{- define "shiplog-controller.settingsEnv" -}}
{{- range list
  (list "SHIPLOG_API_URL" $.Values.config.apiUrl)
  (list "SHIPLOG_APP_ID" (and $.Values.auth.app.id (toString $.Values.auth.app.id)))
  (list "SHIPLOG_APP_INSTALLATION_ID" (and $.Values.auth.app.id (and $.Values.auth.app.installationId (toString $.Values.auth.app.installationId))))
  (list "SHIPLOG_ORG" $.Values.config.org)
  (list "SHIPLOG_CLUSTER" $.Values.config.cluster)
  (list "SHIPLOG_LOGICAL_ENVIRONMENT" $.Values.config.logicalEnvironment)
  (list "SHIPLOG_PHYSICAL_ENVIRONMENT" $.Values.config.physicalEnvironment)
  (list "SHIPLOG_API_VERSION" $.Values.config.apiVersion)
  (list "SHIPLOG_NAMESPACES" (join "," $.Values.config.namespaces))
  (list "SHIPLOG_EXCLUDE_NAMESPACES" (join "," $.Values.config.excludeNamespaces))
  (list "SHIPLOG_LABEL_SELECTOR" $.Values.config.labelSelector)
  (list "SHIPLOG_DEPLOYMENT_NAME_TEMPLATE" $.Values.config.deploymentNameTemplate)
  (list "SHIPLOG_IMAGE_REPOSITORIES" (include "shiplog-controller.mapSetting" $.Values.config.imageRepositories))
  (list "SHIPLOG_REGISTRY_HOST" $.Values.config.registryHost)
  (list "SHIPLOG_BATCH_SIZE" (toString (int $.Values.config.batchSize)))
  (list "SHIPLOG_CONCURRENCY" (toString (int $.Values.config.concurrency)))
  (list "SHIPLOG_FLUSH_WINDOW" $.Values.config.flushWindow)
  (list "SHIPLOG_FLUSH_MAX_WAIT" $.Values.config.flushMaxWait)
  (list "SHIPLOG_WRITE_BUDGET_PER_MINUTE" (toString (int $.Values.config.writeBudgetPerMinute)))
  (list "SHIPLOG_WRITE_BUDGET_PER_HOUR" (toString (int $.Values.config.writeBudgetPerHour)))
  (list "SHIPLOG_WRITE_MIN_INTERVAL" $.Values.config.writeMinInterval)
  (list "SHIPLOG_RESYNC_INTERVAL" $.Values.config.resyncInterval)
  (list "SHIPLOG_RESYNC_BUDGET_SHARE" (toString $.Values.config.resyncBudgetShare))
  (list "SHIPLOG_RETRY_MIN_DELAY" $.Values.config.retryMinDelay)
  (list "SHIPLOG_RETRY_MAX_DELAY" $.Values.config.retryMaxDelay)
  (list "SHIPLOG_REQUEST_TIMEOUT" $.Values.config.requestTimeout)
  (list "SHIPLOG_WATCH_TIMEOUT" $.Values.config.watchTimeout)
  (list "SHIPLOG_WATCH_IDLE_TIMEOUT" $.Values.config.watchIdleTimeout)
  (list "SHIPLOG_HTTP_PORT" (toString (int $.Values.config.httpPort)))
  (list "SHIPLOG_LOG_LEVEL" $.Values.config.logLevel)
  (list "SHIPLOG_LOG_FORMAT" $.Values.config.logFormat)
  (list "SHIPLOG_DRY_RUN" (toString $.Values.config.dryRun))
  (list "SHIPLOG_STATE_MAX_SHARDS" (toString (int $.Values.state.maxShards)))
  (list "SHIPLOG_LEASE_DURATION" (and $.Values.leaderElection.enabled $.Values.leaderElection.leaseDuration))
  (list "SHIPLOG_RENEW_DEADLINE" (and $.Values.leaderElection.enabled $.Values.leaderElection.renewDeadline))
  (list "SHIPLOG_RETRY_PERIOD" (and $.Values.leaderElection.enabled $.Values.leaderElection.retryPeriod))
}}
{{- if index . 1 }}
- name: {{ index . 0 }}
  value: {{ index . 1 | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* A map value as the controller's comma list of <key>=<value>. */}}
{{- define "shiplog-controller.mapSetting" -}}
{{- $pairs := list }}
{{- range $key, $value := . }}{{ $pairs = append $pairs (printf "%s=%s" $key $value) }}{{ end }}
{{- join "," $pairs }}
{{- end }}

{{/* Each duration value: its path, its value, the controller's setting, its least milliseconds. */}}
{{- define "shiplog-controller.durationRules" -}}
{{- list
  (list "config.flushWindow" .Values.config.flushWindow "--flush-window / SHIPLOG_FLUSH_WINDOW" 0)
  (list "config.flushMaxWait" .Values.config.flushMaxWait "--flush-max-wait / SHIPLOG_FLUSH_MAX_WAIT" 1)
  (list "config.writeMinInterval" .Values.config.writeMinInterval "--write-min-interval / SHIPLOG_WRITE_MIN_INTERVAL" 0)
  (list "config.resyncInterval" .Values.config.resyncInterval "--resync-interval / SHIPLOG_RESYNC_INTERVAL" 0)
  (list "config.retryMinDelay" .Values.config.retryMinDelay "--retry-min-delay / SHIPLOG_RETRY_MIN_DELAY" 1)
  (list "config.retryMaxDelay" .Values.config.retryMaxDelay "--retry-max-delay / SHIPLOG_RETRY_MAX_DELAY" 1)
  (list "config.requestTimeout" .Values.config.requestTimeout "--request-timeout / SHIPLOG_REQUEST_TIMEOUT" 100)
  (list "config.watchTimeout" .Values.config.watchTimeout "--watch-timeout / SHIPLOG_WATCH_TIMEOUT" 1000)
  (list "config.watchIdleTimeout" .Values.config.watchIdleTimeout "--watch-idle-timeout / SHIPLOG_WATCH_IDLE_TIMEOUT" 100)
  (list "leaderElection.leaseDuration" .Values.leaderElection.leaseDuration "--lease-duration / SHIPLOG_LEASE_DURATION" 1000)
  (list "leaderElection.renewDeadline" .Values.leaderElection.renewDeadline "--renew-deadline / SHIPLOG_RENEW_DEADLINE" 100)
  (list "leaderElection.retryPeriod" .Values.leaderElection.retryPeriod "--retry-period / SHIPLOG_RETRY_PERIOD" 50)
| toJson }}
{{- end }}

{{/*
Each rule between two settings (SETTING_RELATIONS): its kind, the values the controller names, the value, the other
value; an order's factor and whether equal holds; the problem; the rule.
*/}}
{{- define "shiplog-controller.settingRelations" -}}
{{- list
  (list "order" "config.flushMaxWait" (default "1s" $.Values.config.flushMaxWait) (default "100ms" $.Values.config.flushWindow) 1 true "must not be shorter than the flush window" "≥ flush-window")
  (list "order" "config.retryMaxDelay" (default "1m" $.Values.config.retryMaxDelay) (default "1s" $.Values.config.retryMinDelay) 1 true "must not be shorter than the retry minimum delay" "≥ retry-min-delay")
  (list "order" "leaderElection.leaseDuration, leaderElection.renewDeadline, leaderElection.retryPeriod" (and $.Values.leaderElection.enabled (default "15s" $.Values.leaderElection.leaseDuration)) (and $.Values.leaderElection.enabled (default "10s" $.Values.leaderElection.renewDeadline)) 1 false "the lease duration must be longer than the renew deadline" "lease timing")
  (list "order" "leaderElection.leaseDuration, leaderElection.renewDeadline, leaderElection.retryPeriod" (and $.Values.leaderElection.enabled (default "10s" $.Values.leaderElection.renewDeadline)) (and $.Values.leaderElection.enabled (default "2s" $.Values.leaderElection.retryPeriod)) 1.2 false "the renew deadline must be longer than 1.2 × the retry period" "lease timing")
  (list "disjoint" "config.excludeNamespaces" $.Values.config.excludeNamespaces $.Values.config.namespaces "both included and excluded" "disjoint from namespaces")
| toJson }}
{{- end }}

{{/* Each value that must contain parts (a type's mustContain): its path, its value, the parts, why. */}}
{{- define "shiplog-controller.containRules" -}}
{{- list
  (list "config.deploymentNameTemplate" .Values.config.deploymentNameTemplate (list "{workload}" "{container}") "so that records of different workloads and containers stay apart")
| toJson }}
{{- end }}

{{- define "shiplog-controller.maxDurationMs" -}}
2147483647
{{- end }}

{{/*
Up to this many config.namespaces the controller watches each on its own (a Role in each); above, it watches
cluster-wide and keeps only theirs (a ClusterRole). The controller's MAX_NAMESPACED_WATCHES.
*/}}
{{- define "shiplog-controller.maxNamespacedWatches" -}}
50
{{- end }}

{{/* The label selector grammar (kube/label-selector.ts's LABEL_SELECTOR_PATTERN); an empty selector is unset. */}}
{{- define "shiplog-controller.labelSelectorPattern" -}}
^\s*(!\s*([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(\s*(==|!=|=)\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?|\s+(in|notin)\s*\(\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\s*(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)*|(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)+)\)|\s*[<>]\s*-?[0-9]+)?)\s*(,\s*(!\s*([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(\s*(==|!=|=)\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?|\s+(in|notin)\s*\(\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\s*(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)*|(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)+)\)|\s*[<>]\s*-?[0-9]+)?)\s*)*$
{{- end }}

{{/* A key prefix longer than 253 characters (LABEL_SELECTOR_LONG_PREFIX), which the grammar's pattern cannot bound. */}}
{{- define "shiplog-controller.labelSelectorLongPrefix" -}}
(^|[\s,!=()<>])[^\s,!=()<>/]{254,}/
{{- end }}
