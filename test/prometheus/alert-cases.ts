// promtool unit tests of the chart's alerts (charts/shiplog-controller/files/prometheus-rules.yaml): for every alert,
// series that must fire it and healthy series that must leave it silent. The expected annotations are the rule's
// own, expanded for the case's labels and value, so a test pins the labels and the timing, not the wording.

/** One promtool test: input series, and at `evalTime` the alert firing with `fires` labels, or silent (null). */
export interface AlertCase {
  alert: string;
  name: string;
  /** Interval of the input series (default 1m). */
  interval?: string;
  series: Record<string, string>;
  evalTime: string;
  /** The firing alert's labels besides severity; null: the alert must not fire. */
  fires: Record<string, string> | null;
  /** How the alert's `$value` reads in its annotations (`humanize`, `humanizeTimestamp` applied). */
  value?: string;
}

const POD = 'job="shiplog-controller", instance="10.0.0.1:8080", namespace="shiplog", pod="shiplog-0"';
const OTHER = 'job="shiplog-controller", instance="10.0.0.2:8080", namespace="shiplog", pod="shiplog-1"';
const POD_LABELS = { job: "shiplog-controller", instance: "10.0.0.1:8080", namespace: "shiplog", pod: "shiplog-0" };

export const ALERT_CASES: AlertCase[] = [
  {
    alert: "ShiplogRecordsPending",
    name: "records pending for 20 minutes",
    series: { [`shiplog_controller_pending_records{${POD}}`]: "3x30" },
    evalTime: "20m",
    fires: POD_LABELS,
    value: "3",
  },
  {
    alert: "ShiplogRecordsPending",
    name: "pending now and then, sent at the next flush",
    series: { [`shiplog_controller_pending_records{${POD}}`]: "0 3 0 0 5 0 0 0 2 0 0 0 0 1 0 0 0 0 0 4 0 0 0 0 0 0" },
    evalTime: "25m",
    fires: null,
  },
  {
    alert: "ShiplogRecordsRejected",
    name: "the service keeps refusing records (nothing links their images)",
    series: { [`shiplog_controller_refused_records{${POD}, reason="not_found"}`]: "6x60" },
    evalTime: "20m",
    fires: { ...POD_LABELS, reason: "not_found" },
    value: "6",
  },
  {
    alert: "ShiplogRecordsRejected",
    name: "a record refused, then linked: the series goes away",
    series: { [`shiplog_controller_refused_records{${POD}, reason="not_found"}`]: "1x5 _x55" },
    evalTime: "40m",
    fires: null,
  },
  {
    alert: "ShiplogNoSuccessfulSync",
    name: "the leader's last successful flush never moves",
    series: {
      [`shiplog_controller_leader{${POD}}`]: "1x60",
      [`shiplog_controller_last_successful_flush_timestamp_seconds{${POD}}`]: "600x60",
    },
    evalTime: "40m",
    fires: POD_LABELS,
  },
  {
    alert: "ShiplogNoSuccessfulSync",
    name: "a new leader flushed before its first scrape and the cluster is quiet: not for the window's length",
    series: {
      [`shiplog_controller_leader{${POD}}`]: "1x25",
      [`shiplog_controller_last_successful_flush_timestamp_seconds{${POD}}`]: "60x25",
    },
    evalTime: "25m",
    fires: null,
  },
  {
    alert: "ShiplogNoSuccessfulSync",
    name: "the leader flushes; a standby never does",
    series: {
      [`shiplog_controller_leader{${POD}}`]: "1x60",
      [`shiplog_controller_last_successful_flush_timestamp_seconds{${POD}}`]: "0+60x60",
      [`shiplog_controller_leader{${OTHER}}`]: "0x60",
      [`shiplog_controller_last_successful_flush_timestamp_seconds{${OTHER}}`]: "0x60",
    },
    evalTime: "40m",
    fires: null,
  },
  {
    alert: "ShiplogTokenRefused",
    name: "every call answered 401",
    series: {
      [`shiplog_controller_requests_total{${POD}, result="failure", code="authentication_required"}`]: "0+4x30",
      [`shiplog_controller_requests_total{${POD}, result="success", code=""}`]: "120x30",
    },
    evalTime: "15m",
    fires: POD_LABELS,
  },
  {
    alert: "ShiplogTokenRefused",
    name: "a 401 while the token rotates, then calls succeed",
    series: {
      [`shiplog_controller_requests_total{${POD}, result="failure", code="authentication_required"}`]: "0 1x29",
      [`shiplog_controller_requests_total{${POD}, result="success", code=""}`]: "0+3x30",
    },
    evalTime: "15m",
    fires: null,
  },
  {
    alert: "ShiplogTokenExpiringSoon",
    name: "the installation token is not renewed and expires at 50 minutes",
    series: { [`shiplog_controller_token_remaining_seconds{${POD}}`]: "3000-60x60" },
    evalTime: "45m",
    fires: POD_LABELS,
    value: "5m 0s",
  },
  {
    alert: "ShiplogTokenExpiringSoon",
    name: "the token is renewed and stays an hour ahead; a static token exports no series",
    series: {
      [`shiplog_controller_token_remaining_seconds{${POD}}`]: "3600x60",
      [`shiplog_controller_leader{${OTHER}}`]: "1x60",
    },
    evalTime: "45m",
    fires: null,
  },
  {
    alert: "ShiplogNoLeader",
    name: "both replicas stand by",
    series: { [`shiplog_controller_leader{${POD}}`]: "0x20", [`shiplog_controller_leader{${OTHER}}`]: "0x20" },
    evalTime: "10m",
    fires: { job: "shiplog-controller", namespace: "shiplog" },
  },
  {
    alert: "ShiplogNoLeader",
    name: "one replica leads; a failover takes two minutes",
    series: { [`shiplog_controller_leader{${POD}}`]: "1 1 0x18", [`shiplog_controller_leader{${OTHER}}`]: "0 0 0 0 1x16" },
    evalTime: "10m",
    fires: null,
  },
  {
    alert: "ShiplogWatchRestartStorm",
    name: "watches restart twice a minute",
    series: { [`shiplog_controller_watch_restarts_total{${POD}, kind="Pod", reason="short-lived"}`]: "0+2x60" },
    evalTime: "25m",
    fires: POD_LABELS,
    value: "20",
  },
  {
    alert: "ShiplogWatchRestartStorm",
    name: "a watch restart every five minutes",
    interval: "5m",
    series: { [`shiplog_controller_watch_restarts_total{${POD}, kind="Pod", reason="error"}`]: "0+1x20" },
    evalTime: "60m",
    fires: null,
  },
  {
    alert: "ShiplogStateWritesFailing",
    name: "every state write fails",
    series: {
      [`shiplog_controller_state_writes_total{${POD}, result="failure"}`]: "0+1x30",
      [`shiplog_controller_state_writes_total{${POD}, result="success"}`]: "5x30",
    },
    evalTime: "20m",
    fires: POD_LABELS,
  },
  {
    alert: "ShiplogStateWritesFailing",
    name: "a conflict now and then, writes succeed",
    series: {
      [`shiplog_controller_state_writes_total{${POD}, result="failure"}`]: "0 0 0 1 1 1 1 1 2x22",
      [`shiplog_controller_state_writes_total{${POD}, result="success"}`]: "0+1x30",
    },
    evalTime: "20m",
    fires: null,
  },
  {
    alert: "ShiplogStateDamaged",
    name: "the leader loaded a damaged state (a standby has no state loaded)",
    series: {
      [`shiplog_controller_state_damaged{${POD}}`]: "0 0 1x10",
      [`shiplog_controller_state_damaged{${OTHER}}`]: "0x12",
    },
    evalTime: "5m",
    fires: { job: "shiplog-controller", namespace: "shiplog" },
    value: "1",
  },
  {
    alert: "ShiplogStateDamaged",
    name: "a whole state, or damage cleared by the operator",
    series: {
      [`shiplog_controller_state_damaged{${POD}}`]: "0x5 1 1 0x5",
      [`shiplog_controller_state_damaged{${OTHER}}`]: "0x12",
    },
    evalTime: "10m",
    fires: null,
  },
  {
    alert: "ShiplogConflictingStateWriters",
    name: "a replica meets another controller's writes to its state (leader election off on both)",
    series: {
      [`shiplog_controller_state_conflicting_writers{${POD}}`]: "0 0 1x10",
      [`shiplog_controller_state_conflicting_writers{${OTHER}}`]: "0x12",
    },
    evalTime: "5m",
    fires: POD_LABELS,
    value: "1",
  },
  {
    alert: "ShiplogConflictingStateWriters",
    name: "one writer on a Lease, or the other writer gone",
    series: {
      [`shiplog_controller_state_conflicting_writers{${POD}}`]: "0x3 1x3 0x6",
      [`shiplog_controller_state_conflicting_writers{${OTHER}}`]: "0x12",
    },
    evalTime: "10m",
    fires: null,
  },
];

/** A rule of the rules file, as promtool reads it. */
export interface AlertRule {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Expands the Prometheus templates the rules' annotations use ({{ $labels.x }}, {{ $value }} and its pipes). */
export function expandAnnotation(text: string, labels: Record<string, string>, value: string | undefined): string {
  return text.replace(/\{\{\s*\$(labels\.(\w+)|value)(\s*\|\s*\w+)?\s*\}\}/g, (whole, _ref: string, label: string | undefined) => {
    if (label !== undefined) return labels[label] ?? "";
    if (value === undefined) throw new Error(`the case needs a value for ${whole}`);
    return value;
  });
}

/** The promtool test file (YAML as JSON) for `cases` against `rulesFile`. */
export function promtoolTests(rulesFile: string, rules: AlertRule[], cases: AlertCase[]): object {
  return {
    rule_files: [rulesFile],
    evaluation_interval: "1m",
    tests: cases.map((c) => {
      const rule = rules.find((r) => r.alert === c.alert);
      if (!rule) throw new Error(`no rule ${c.alert}`);
      const expLabels = c.fires && { ...rule.labels, ...c.fires };
      return {
        name: `${c.alert}: ${c.name}`,
        interval: c.interval ?? "1m",
        input_series: Object.entries(c.series).map(([series, values]) => ({ series, values })),
        alert_rule_test: [
          {
            eval_time: c.evalTime,
            alertname: c.alert,
            exp_alerts: expLabels
              ? [
                  {
                    exp_labels: expLabels,
                    exp_annotations: Object.fromEntries(
                      Object.entries(rule.annotations).map(([k, v]) => [k, expandAnnotation(v, c.fires!, c.value)]),
                    ),
                  },
                ]
              : [],
          },
        ],
      };
    }),
  };
}
