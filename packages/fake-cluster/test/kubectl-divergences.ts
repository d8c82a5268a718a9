// The kubectl checks (kubectl-checks.ts) where the fake cluster answers otherwise than a real API server, on purpose:
// each with its reason, which the fake cluster's README gives too.

/** Check name -> why the fake differs there. */
export const KNOWN_KUBECTL_DIVERGENCES = new Map<string, string>([
  [
    "apply --server-side",
    "server-side apply (application/apply-patch+yaml) is answered 415: Apply entries and apply's field ownership are out of the fake's scope",
  ],
]);
