{{/*
Generated from the controller's settings (packages/controller/src/config/rules.ts, election/lease-timing.ts) by
`pnpm chart:generate`; do not edit. Each duration value: its path, its value, the controller's setting, its least
milliseconds. _helpers.tpl checks them with the controller's rule.
*/}}
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

{{- define "shiplog-controller.maxDurationMs" -}}
2147483647
{{- end }}

{{- define "shiplog-controller.leaseJitterFactor" -}}
1.2
{{- end }}

{{/* The label selector grammar (kube/label-selector.ts's LABEL_SELECTOR_PATTERN); an empty selector is unset. */}}
{{- define "shiplog-controller.labelSelectorPattern" -}}
^\s*(!\s*([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(\s*(==|!=|=)\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?|\s+(in|notin)\s*\(\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\s*(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)*|(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)+)\)|\s*[<>]\s*-?[0-9]+)?)\s*(,\s*(!\s*([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(\s*(==|!=|=)\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?|\s+(in|notin)\s*\(\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\s*(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)*|(,\s*([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\s*)+)\)|\s*[<>]\s*-?[0-9]+)?)\s*)*$
{{- end }}

{{/* A key prefix longer than 253 characters (LABEL_SELECTOR_LONG_PREFIX), which the grammar's pattern cannot bound. */}}
{{- define "shiplog-controller.labelSelectorLongPrefix" -}}
(^|[\s,!=()<>])[^\s,!=()<>/]{254,}/
{{- end }}
