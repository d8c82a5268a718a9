/** The `shiplog` exit codes, documented in every --help and in the README; scripts may branch on them. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The service refused the request (403, 409, 422 ...), or a tag exists elsewhere. */
  refused: 1,
  /** The command line was wrong: nothing was sent. */
  usage: 2,
  /** What was asked for does not exist (404), or the permission matrix does not cover the call. */
  notFound: 3,
  /** No credentials, or the service did not accept them (401). */
  auth: 4,
  /** The service could not be reached or did not answer usefully (network, timeout, 5xx, rate limit). */
  unavailable: 5,
  /** Interrupted (Ctrl-C) before the command was done; a tail stopped by Ctrl-C is done, and exits 0. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0    done (a tail stopped with Ctrl-C too)
  1    the service refused the request (403, 409, 422), or a tag exists elsewhere
  2    bad usage: nothing was sent
  3    not found (404), or a call the permission matrix does not cover
  4    no credentials, or they were not accepted (401)
  5    the service could not be reached (network, timeout, 5xx, rate limit)
  130  interrupted (Ctrl-C) before the command was done`;
